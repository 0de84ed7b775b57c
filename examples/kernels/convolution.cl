// A 2-D convolution, Kernel Tuner's classic example written for OpenCL: output(y, x) is the sum
// over the filter of input(y + i, x + j) * weights(i, j); the input carries a border of
// filter - 1 columns and rows. A work-group stages its input tile with its border in local
// memory; each work-item computes tile_size_x x tile_size_y outputs, block_size_x apart in x
// (neighbouring work-items read neighbouring addresses).

#ifndef block_size_x
#define block_size_x 16  // work-items of a work-group in x
#endif
#ifndef block_size_y
#define block_size_y 16  // work-items of a work-group in y
#endif
#ifndef tile_size_x
#define tile_size_x 1  // outputs per work-item in x
#endif
#ifndef tile_size_y
#define tile_size_y 1  // outputs per work-item in y
#endif
#ifndef use_padding
#define use_padding 1  // one extra float per local row (against bank conflicts on GPUs)
#endif
#ifndef image_width
#define image_width 4096  // output columns
#endif
#ifndef image_height
#define image_height 4096  // output rows
#endif
#ifndef filter_size
#define filter_size 15  // the filter is filter_size x filter_size
#endif

#define tile_width (block_size_x * tile_size_x)    // outputs of a work-group in x
#define tile_height (block_size_y * tile_size_y)   // outputs of a work-group in y
#define border_width (tile_width + filter_size - 1)  // its input tile
#define border_height (tile_height + filter_size - 1)
#define input_width (image_width + filter_size - 1)
#define input_height (image_height + filter_size - 1)

__kernel __attribute__((reqd_work_group_size(block_size_x, block_size_y, 1))) void
convolution_kernel(__global float* output, __global const float* input,
                   __constant float* weights) {
  __local float tile[border_height][border_width + use_padding];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int x0 = get_group_id(0) * tile_width, y0 = get_group_id(1) * tile_height;
  for (int i = ty; i < border_height; i += block_size_y) {
    for (int j = tx; j < border_width; j += block_size_x) {
      const int y = y0 + i, x = x0 + j;
      tile[i][j] = (y < input_height && x < input_width) ? input[y * input_width + x] : 0.0f;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  float sum[tile_size_y][tile_size_x];
  for (int yi = 0; yi < tile_size_y; ++yi) {
    for (int xi = 0; xi < tile_size_x; ++xi) sum[yi][xi] = 0.0f;
  }
  for (int i = 0; i < filter_size; ++i) {
    for (int j = 0; j < filter_size; ++j) {
      const float w = weights[i * filter_size + j];
      for (int yi = 0; yi < tile_size_y; ++yi) {
        for (int xi = 0; xi < tile_size_x; ++xi) {
          sum[yi][xi] += tile[ty + yi * block_size_y + i][tx + xi * block_size_x + j] * w;
        }
      }
    }
  }
  for (int yi = 0; yi < tile_size_y; ++yi) {
    for (int xi = 0; xi < tile_size_x; ++xi) {
      const int y = y0 + ty + yi * block_size_y, x = x0 + tx + xi * block_size_x;
      if (y < image_height && x < image_width) output[y * image_width + x] = sum[yi][xi];
    }
  }
}

// The reference: one output per work-item, straight from global memory.
__kernel void convolution_naive(__global float* output, __global const float* input,
                                __constant float* weights) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= image_width || y >= image_height) return;
  float sum = 0.0f;
  for (int i = 0; i < filter_size; ++i) {
    for (int j = 0; j < filter_size; ++j) {
      sum += input[(y + i) * input_width + x + j] * weights[i * filter_size + j];
    }
  }
  output[y * image_width + x] = sum;
}
