// Shared by every mmtune kernel: the scalar type chosen by PRECISION and width-generic vector
// helpers. The host prepends this file to each kernel source.

#ifndef PRECISION
#define PRECISION 32  // bits of the scalar type: 16 (needs cl_khr_fp16), 32 or 64 (cl_khr_fp64)
#endif

#if PRECISION == 16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half real;
typedef half2 real2;
typedef half3 real3;
typedef half4 real4;
typedef half8 real8;
typedef half16 real16;
#elif PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
typedef double3 real3;
typedef double4 real4;
typedef double8 real8;
typedef double16 real16;
#else
typedef float real;
typedef float2 real2;
typedef float3 real3;
typedef float4 real4;
typedef float8 real8;
typedef float16 real16;
#endif
typedef real real1;

// Token pasting through one level of indirection so that macro arguments expand first.
#define MMT_CAT(a, b) a##b
#define MMT_XCAT(a, b) MMT_CAT(a, b)

// realW, VLOAD(W) and VSTORE(W) for a width W given as a macro (W = 1 is the plain scalar).
// Own names, because some compilers define vloadN/vstoreN as macros themselves.
#define mmt_vload1(offset, p) ((p)[offset])
#define mmt_vload2 vload2
#define mmt_vload3 vload3
#define mmt_vload4 vload4
#define mmt_vload8 vload8
#define mmt_vload16 vload16
#define mmt_vstore1(v, offset, p) ((p)[offset] = (v))
#define mmt_vstore2 vstore2
#define mmt_vstore3 vstore3
#define mmt_vstore4 vstore4
#define mmt_vstore8 vstore8
#define mmt_vstore16 vstore16
#define VREAL(w) MMT_XCAT(real, w)
#define VLOAD(w) MMT_XCAT(mmt_vload, w)
#define VSTORE(w) MMT_XCAT(mmt_vstore, w)
