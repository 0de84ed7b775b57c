// Matrix transpose through a local-memory tile: out (width rows of height) = in (height rows of
// width) transposed. A work-group reads a tile x tile block with coalesced loads, and writes it
// transposed, again with coalesced stores; each work-item moves per_item rows of the block.

#ifndef tile
#define tile 16  // the block's side, in elements
#endif
#ifndef per_item
#define per_item 1  // rows of the block each work-item moves
#endif
#ifndef padding
#define padding 1  // extra elements per local row (against bank conflicts on GPUs)
#endif
#ifndef width
#define width 4096  // columns of the input
#endif
#ifndef height
#define height 4096  // rows of the input
#endif

#define rows_per_pass (tile / per_item)  // work-items in y

__kernel __attribute__((reqd_work_group_size(tile, rows_per_pass, 1))) void transpose(
    __global float* out, __global const float* in) {
  __local float block[tile][tile + padding];
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x0 = get_group_id(0) * tile, y0 = get_group_id(1) * tile;
  for (int i = 0; i < per_item; ++i) {
    const int y = ly + i * rows_per_pass;
    if (x0 + lx < width && y0 + y < height) block[y][lx] = in[(y0 + y) * width + x0 + lx];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Output row x0 + y holds input column x0 + y; its column y0 + lx is input row y0 + lx.
  for (int i = 0; i < per_item; ++i) {
    const int y = ly + i * rows_per_pass;
    if (y0 + lx < height && x0 + y < width) out[(x0 + y) * height + y0 + lx] = block[lx][y];
  }
}

// The reference: one element per work-item.
__kernel void transpose_naive(__global float* out, __global const float* in) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x < width && y < height) out[x * height + y] = in[y * width + x];
}
