// Small kernels that measure a device's roofs: peak arithmetic throughput and global memory
// bandwidth (mmtune roofline). Not part of the GEMM family.

#ifndef VW
#define VW 4  // vector width of the arithmetic chains (the host uses the preferred width)
#endif
#ifndef ITERATIONS
#define ITERATIONS 2048  // multiply-adds per chain per work-item
#endif

#define realV VREAL(VW)

// Eight independent multiply-add chains per work-item keep the pipelines full; the result is
// written so that the compiler cannot drop the work. 2 * 8 * VW * ITERATIONS flops per item.
__kernel void peak_flops(__global real* out, const real seed) {
  const realV s = (realV)(seed);
  realV a0 = s + (realV)0.1, a1 = s + (realV)0.2, a2 = s + (realV)0.3, a3 = s + (realV)0.4;
  realV a4 = s + (realV)0.5, a5 = s + (realV)0.6, a6 = s + (realV)0.7, a7 = s + (realV)0.8;
  const realV m = (realV)(0.999), c = (realV)(0.001);
  for (int i = 0; i < ITERATIONS; ++i) {
    a0 = a0 * m + c;
    a1 = a1 * m + c;
    a2 = a2 * m + c;
    a3 = a3 * m + c;
    a4 = a4 * m + c;
    a5 = a5 * m + c;
    a6 = a6 * m + c;
    a7 = a7 * m + c;
  }
  const realV sum = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
  real r[VW];
  VSTORE(VW)(sum, 0, r);
  real total = (real)0;
  for (int l = 0; l < VW; ++l) total += r[l];
  out[get_global_id(0)] = total;
}

// dst = src, VW elements per work-item: bandwidth = 2 * bytes / time.
__kernel void stream_copy(const __global real* restrict src, __global real* restrict dst) {
  const int i = get_global_id(0);
  VSTORE(VW)(VLOAD(VW)(i, src), i, dst);
}
