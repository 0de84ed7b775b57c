// Helper kernels of the tiled routine: bring any operand into the padded, tile-multiple internal
// layout that gemm_tiled.cl expects, and bring the padded result back into the user's C.

// Both pack kernels fill dst, the rows_p x cols_p padded matrix cut into column panels of `panel`
// columns, each panel stored row by row (panel-major: element (i, j) at
// dst[(j / panel) * rows_p * panel + i * panel + j % panel]; panel = cols_p is a plain row-major
// matrix). Element (i, j) comes from src[src_offset + i * si + j * sj] inside the rows x cols
// source and is zero in the padding. They differ in which work-items are neighbours, so that
// neighbouring work-items read neighbouring source elements (coalesced on GPUs, vector loads
// where PoCL vectorises across work-items). A strided batch packs every item in one launch:
// item t reads from src + t * src_stride and writes dst + t * dst_stride.

#ifndef PACK_ROWS
#define PACK_ROWS 16  // elements per work-item of the blocked packs: one 16-wide vector
#endif
#if PACK_ROWS != 16
#error "the blocked packs move PACK_ROWS elements as one vload16"
#endif

// For sources contiguous along j (sj = 1): one element per work-item, launched as
// panel x rows_p x (panels * items) so no work-item divides but by the panel count.
__kernel void pack_rows(const int rows, const int cols, const __global real* restrict src,
                        const int src_offset, const int si, const int sj,
                        __global real* restrict dst, const int rows_p, const int panel,
                        const int src_stride, const int dst_stride, const int panels) {
  const int jj = get_global_id(0);
  const int i = get_global_id(1);
  const int item = get_global_id(2) / panels;
  const int p = get_global_id(2) - item * panels;
  const int j = p * panel + jj;
  dst[item * dst_stride + (p * rows_p + i) * panel + jj] =
      (i < rows && j < cols) ? src[src_offset + item * src_stride + i * si + j * sj] : (real)0;
}

// pack_rows for implementations that want explicit vectors (CPUs), on panels of a multiple of
// PACK_ROWS: a work-item copies PACK_ROWS consecutive elements of a panel row with one vector
// load and store, launched as (panel / PACK_ROWS) x rows_p x (panels * items). One element per
// work-item ran at 20-36 GB/s, this form at 42-62 (2048^2 fp32, PoCL pthread, 2-core AMD EPYC
// Zen 5; a plain copy: 41-60).
__kernel void pack_rows_blocked(const int rows, const int cols, const __global real* restrict src,
                                const int src_offset, const int si, const int sj,
                                __global real* restrict dst, const int rows_p, const int panel,
                                const int src_stride, const int dst_stride, const int panels) {
  const int jj = get_global_id(0) * PACK_ROWS;
  const int i = get_global_id(1);
  const int item = get_global_id(2) / panels;
  const int p = get_global_id(2) - item * panels;
  const int j = p * panel + jj;
  __global real* d = dst + item * dst_stride + (p * rows_p + i) * panel + jj;
  const __global real* s = src + src_offset + item * src_stride + i * si + j;  // sj == 1
  if (i < rows && j + PACK_ROWS <= cols) {
    vstore16(vload16(0, s), 0, d);
  } else {
    for (int l = 0; l < PACK_ROWS; ++l) d[l] = (i < rows && j + l < cols) ? s[l] : (real)0;
  }
}

// For sources contiguous along i (si = 1, a transposition): one panel row per work-item, launched
// as rows_p x (cols_p / panel) x items. Half the time of pack_rows for this case on PoCL.
__kernel void pack_cols(const int rows, const int cols, const __global real* restrict src,
                        const int src_offset, const int si, const int sj,
                        __global real* restrict dst, const int rows_p, const int panel,
                        const int src_stride, const int dst_stride) {
  const int i = get_global_id(0);
  const int p = get_global_id(1);
  const int item = get_global_id(2);
  __global real* d = dst + item * dst_stride + (p * rows_p + i) * panel;
  const int valid = (i < rows) ? clamp(cols - p * panel, 0, panel) : 0;
  const __global real* s = src + src_offset + item * src_stride + i * si + p * panel * sj;
  for (int jj = 0; jj < valid; ++jj) d[jj] = s[jj * sj];
  for (int jj = valid; jj < panel; ++jj) d[jj] = (real)0;
}

// pack_cols for implementations that want explicit vectors (CPUs): a work-item packs PACK_ROWS
// consecutive rows of one panel, one vector load down each source column. One panel row per
// work-item read a new cache line per element: 6-8x slower at 1024^2, 3x at 2048^2 on PoCL;
// on SIMT implementations (llvmpipe) this form is the slower one (docs/kernels.md).
__kernel void pack_cols_blocked(const int rows, const int cols, const __global real* restrict src,
                                const int src_offset, const int si, const int sj,
                                __global real* restrict dst, const int rows_p, const int panel,
                                const int src_stride, const int dst_stride) {
  const int i0 = get_global_id(0) * PACK_ROWS;
  const int p = get_global_id(1);
  const int item = get_global_id(2);
  __global real* d = dst + item * dst_stride + (p * rows_p + i0) * panel;
  const int valid = clamp(cols - p * panel, 0, panel);
  const int written = min(PACK_ROWS, rows_p - i0);  // the last work-item's rows may be fewer
  const __global real* s = src + src_offset + item * src_stride + i0 * si + p * panel * sj;
  if (i0 + PACK_ROWS <= rows) {  // si == 1: chosen only for sources contiguous along i
    for (int jj = 0; jj < valid; ++jj) {
      const real16 v = vload16(0, s + jj * sj);
      d[jj] = v.s0, d[panel + jj] = v.s1, d[2 * panel + jj] = v.s2, d[3 * panel + jj] = v.s3;
      d[4 * panel + jj] = v.s4, d[5 * panel + jj] = v.s5, d[6 * panel + jj] = v.s6;
      d[7 * panel + jj] = v.s7, d[8 * panel + jj] = v.s8, d[9 * panel + jj] = v.s9;
      d[10 * panel + jj] = v.sa, d[11 * panel + jj] = v.sb, d[12 * panel + jj] = v.sc;
      d[13 * panel + jj] = v.sd, d[14 * panel + jj] = v.se, d[15 * panel + jj] = v.sf;
    }
  } else {
    for (int r = 0; r < written; ++r) {
      for (int jj = 0; jj < valid; ++jj) {
        d[r * panel + jj] = i0 + r < rows ? s[r * si + jj * sj] : (real)0;
      }
    }
  }
  for (int r = 0; r < written; ++r) {
    for (int jj = valid; jj < panel; ++jj) d[r * panel + jj] = (real)0;
  }
}

// The IMG=1 form of both packs: dst is the rows_p x (cols_p / 4) float4 texels of the buffer
// behind a 1-D image, texel (x, i) at i * (cols_p / 4) + x holding elements (i, 4x..4x+3), zero
// in the padding. One pass, where the image is read straight from this buffer.
#if PRECISION == 32
__kernel void pack_image(const int rows, const int cols, const __global float* restrict src,
                         const int src_offset, const int si, const int sj,
                         __global float4* restrict dst) {
  const int x = get_global_id(0);
  const int i = get_global_id(1);
  float4 v = (float4)0;
  if (i < rows) {
    const __global float* s = src + src_offset + i * si;
    const int j = 4 * x;
    if (j < cols) v.x = s[j * sj];
    if (j + 1 < cols) v.y = s[(j + 1) * sj];
    if (j + 2 < cols) v.z = s[(j + 2) * sj];
    if (j + 3 < cols) v.w = s[(j + 3) * sj];
  }
  dst[i * (int)get_global_size(0) + x] = v;
}
#endif

// dst(i, j) = src(i, j) + beta * dst(i, j) for the rows x cols top-left part of the padded src;
// beta = 0 never reads dst (BLAS semantics: C may hold NaN). Dimension 2 numbers a batch's items.
__kernel void unpad_copy(const int rows, const int cols, const real beta,
                         const __global real* restrict src, const int ld_src,
                         __global real* restrict dst, const int dst_offset, const int ld_dst,
                         const int src_stride, const int dst_stride) {
  const int j = get_global_id(0);
  const int i = get_global_id(1);
  const int item = get_global_id(2);
  if (i >= rows || j >= cols) return;
  __global real* d = dst + dst_offset + item * dst_stride + i * ld_dst + j;
  const real s = src[item * src_stride + i * ld_src + j];
  *d = (beta != (real)0) ? s + beta * *d : s;
}

// C = beta * C for the rows x cols column-major matrix at c[c_offset] with leading dimension
// ldc: the whole routine when k = 0 or alpha = 0 (BLAS: A and B are not read then); beta = 0
// writes zeros without reading C. Item get_global_id(2) of a batch lies stride_c elements on.
__kernel void scale_c(const int rows, const int cols, const real beta, __global real* c,
                      const int c_offset, const int ldc, const int stride_c) {
  const int i = get_global_id(0);
  const int j = get_global_id(1);
  if (i >= rows || j >= cols) return;
  const int item = get_global_id(2);
  __global real* d = c + c_offset + item * stride_c + j * ldc + i;
  *d = (beta != (real)0) ? beta * *d : (real)0;
}
