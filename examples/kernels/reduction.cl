// A parallel sum of unsigned integers: each work-group sums wg * per_item * vw elements (vector
// loads of vw, per_item of them per work-item, the loop unrolled `unroll` times), reduces its
// partial sums in local memory, and adds its total to the result with one atomic. One kernel
// instead of a two-kernel pipeline: the spec format tunes one kernel (docs/spec.md).

#ifndef wg
#define wg 64  // work-items per work-group (a power of two)
#endif
#ifndef per_item
#define per_item 4  // vector loads per work-item
#endif
#ifndef vw
#define vw 4  // elements per vector load: 1, 2, 4, 8 or 16
#endif
#ifndef unroll_loads
#define unroll_loads 1  // unroll factor of the load loop
#endif

#if vw == 1
#define uvec uint
#define load(i, p) (p)[i]
#define sum_of(v) (v)
#else
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define uvec XCAT(uint, vw)
#define load(i, p) XCAT(vload, vw)(i, p)
#if vw == 2
#define sum_of(v) ((v).s0 + (v).s1)
#elif vw == 4
#define sum_of(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3)
#elif vw == 8
#define sum_of(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3 + (v).s4 + (v).s5 + (v).s6 + (v).s7)
#else
#define sum_of(v)                                                                       \
  ((v).s0 + (v).s1 + (v).s2 + (v).s3 + (v).s4 + (v).s5 + (v).s6 + (v).s7 + (v).s8 + (v).s9 + \
   (v).sa + (v).sb + (v).sc + (v).sd + (v).se + (v).sf)
#endif
#endif
#define PRAGMA(x) _Pragma(#x)
#define UNROLL(n) PRAGMA(unroll n)

__kernel __attribute__((reqd_work_group_size(wg, 1, 1))) void reduce(__global uint* total,
                                                                     __global const uint* in,
                                                                     const int n) {
  __local uint partial[wg];
  const int lid = get_local_id(0);
  const int first = get_group_id(0) * wg * per_item;  // in vectors
  uint sum = 0;
  UNROLL(unroll_loads)
  for (int i = 0; i < per_item; ++i) {
    const int v = first + i * wg + lid;  // neighbouring work-items load neighbouring vectors
    if ((v + 1) * vw <= n) {
      sum += sum_of(load(v, in));
    } else {
      for (int e = v * vw; e < n && e < (v + 1) * vw; ++e) sum += in[e];
    }
  }
  partial[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int stride = wg / 2; stride > 0; stride /= 2) {
    if (lid < stride) partial[lid] += partial[lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) atomic_add(total, partial[0]);
}

// The reference: each work-item adds 256 consecutive elements.
__kernel void reduce_reference(__global uint* total, __global const uint* in, const int n) {
  const int first = get_global_id(0) * 256;
  uint sum = 0;
  for (int e = first; e < first + 256 && e < n; ++e) sum += in[e];
  atomic_add(total, sum);
}
