// Tiled GEMM: the main kernel. C = alpha * A * B + beta * C for sizes that are multiples of the
// tiles (the host pads other shapes; read in place, EDGE=1 guards partial tiles). Internal
// layout of the inputs, in panels: A is cut into column panels of MWG values of m, each stored
// as K rows of MWG contiguous values, so element (k, m) is at A[(m / MWG) * a_panel + k * lda +
// m % MWG]; B likewise with NWG and b_panel. The routine packs both (lda = MWG, a_panel =
// K * MWG), so a work-group streams through contiguous memory instead of touching one page per k
// row; a plain K x M matrix is the case a_panel = MWG (PACK=0 reads the caller's A that way).
// C is N x M with m contiguous (c[n*ldc + m]).
// A strided batch is one launch: dimension 2 of the range numbers the items, each `*_stride`
// elements after the one before (buffers only; the host runs images one item at a time).
// A work-group computes an MWG x NWG macro tile of C, stepping through k in KWG slices; each
// work-item keeps an MWI x NWI micro tile of C in registers.

#ifndef MWG
#define MWG 64  // macro tile size in m: rows of C per work-group
#endif
#ifndef NWG
#define NWG 64  // macro tile size in n: columns of C per work-group
#endif
#ifndef KWG
#define KWG 16  // k-slice of A and B processed per outer-loop iteration
#endif
#ifndef MDIMC
#define MDIMC 8  // work-group size in m
#endif
#ifndef NDIMC
#define NDIMC 8  // work-group size in n
#endif
#ifndef MDIMA
#define MDIMA MDIMC  // work-items along m when re-shaped for the cooperative load of A (SA=1)
#endif
#ifndef NDIMB
#define NDIMB NDIMC  // work-items along n when re-shaped for the cooperative load of B (SB=1)
#endif
#ifndef KWI
#define KWI 2  // unroll factor of the innermost k loop
#endif
#ifndef VWM
#define VWM 4  // vector width in m: loads of A, accumulators and stores of C
#endif
#ifndef VWN
#define VWN 4  // vector width in n: loads of B into local memory, grouping of the STRN layout
#endif
#ifndef STRM
#define STRM 0  // 0: a work-item's m-vectors are contiguous; 1: strided by MDIMC (interleaved)
#endif
#ifndef STRN
#define STRN 0  // 0: a work-item's n-vectors are contiguous; 1: strided by NDIMC (interleaved)
#endif
#ifndef SA
#define SA 1  // 1: stage the A slice in local memory; 0: read A straight from global memory
#endif
#ifndef SB
#define SB 1  // 1: stage the B slice in local memory; 0: read B straight from global memory
#endif
#ifndef IMG
#define IMG 0  // 1: A and B are 1-D buffer images of float4 texels (rows of 4 m, 4 n, or 4 k: BK)
#endif
#ifndef PACK
#define PACK 1  // 1: the host packs A and B into panels; 0: read in place where the shape allows
#endif
#ifndef KC
#define KC 0  // host only: k per launch (0: all), later slices with beta = 1
#endif
#ifndef BK
#define BK 0  // 1: B is k-contiguous, (k, n) at B[n * ldb + k] (set by the host, SB=0 only)
#endif
#ifndef EDGE
#define EDGE 0  // 1: read in place on partial tiles (set by the host, PACK=0 only): edges guarded
#endif
#ifndef CBETA
#define CBETA 1  // 0: beta is 0 at every launch (set by the host), so C is only stored
#endif

#define MWI (MWG / MDIMC)                 // micro tile in m per work-item
#define NWI (NWG / NDIMC)                 // micro tile in n per work-item
#define MVI (MWI / VWM)                   // m-vectors per work-item
#define NVI (NWI / VWN)                   // n-vectors per work-item
#define KDIMA ((MDIMC * NDIMC) / MDIMA)   // work-items along k for the load of A
#define KDIMB ((MDIMC * NDIMC) / NDIMB)   // work-items along k for the load of B
#define MVA (MWG / (MDIMA * VWM))         // m-vectors of A each work-item loads per k row
#define KWA (KWG / KDIMA)                 // k rows of A each work-item loads
#define NVB (NWG / (NDIMB * VWN))         // n-vectors of B each work-item loads per k row
#define KWB (KWG / KDIMB)                 // k rows of B each work-item loads

// Images: A's texel (x, k) holds m = 4x..4x+3 of row k, B's likewise n, or with BK=1 (B
// k-contiguous) texel (x, n) holds k = 4x..4x+3 of column n; fp32 only. An
// implementation that loads buffers one lane at a time (Mesa's llvmpipe) fetches texels with
// vector gathers instead; a buffer image needs no sampler, and fetched 1.6x as fast there as a
// 2-D image read with one (docs/kernels.md). `width` is the image's row in texels.
#if IMG
#if PRECISION != 32
#error "IMG=1 reads fp32 texels"
#endif
#if BK && KWG % 4 != 0
#error "IMG=1 with BK=1 reads four k per texel"
#endif
#define OPERAND __read_only image1d_buffer_t
// Texel x of row k; `offset` (texels) places a matrix read where the caller keeps it.
#define TEXEL(img, offset, width, x, k) read_imagef(img, (offset) + (k) * (width) + (x))
#else
#define OPERAND const __global real* restrict
#endif

// A work-group of one work-item needs no barrier (and some compilers mishandle barriers there).
#define SYNC_LOCAL (SA || SB) && (MDIMC * NDIMC > 1)

#define realM VREAL(VWM)
#define realN VREAL(VWN)

// Index (in vectors, within the macro tile) of a work-item's i-th m-vector / n-vector.
#if STRM == 0
#define MVEC(tid, i) ((tid) * MVI + (i))
#else
#define MVEC(tid, i) ((i) * MDIMC + (tid))
#endif
#if STRN == 0
#define NVEC(tid, i) ((tid) * NVI + (i))
#else
#define NVEC(tid, i) ((i) * NDIMC + (tid))
#endif
// The same as element offsets: a work-item's base plus a compile-time step per vector/element.
#if STRM == 0
#define MOFF(tid) ((tid) * MWI)
#define MSTEP(i) ((i) * VWM)
#else
#define MOFF(tid) ((tid) * VWM)
#define MSTEP(i) ((i) * MDIMC * VWM)
#endif
#if STRN == 0
#define NOFF(tid) ((tid) * NWI)
#define NSTEP(i) (i)
#else
#define NOFF(tid) ((tid) * VWN)
#define NSTEP(i) (((i) / VWN) * NDIMC * VWN + (i) % VWN)
#endif

// One k row of the micro tile, acc += a * b, with the loads given as macros of the vector or
// element index: every access is a constant offset from `ak` and `bk` on whole tiles.
#define MAC_ROW(LOAD_A, LOAD_B)                                                 \
  {                                                                             \
    realM a[MVI];                                                               \
    _Pragma("unroll") for (int mi = 0; mi < MVI; ++mi) a[mi] = LOAD_A(mi);      \
    _Pragma("unroll") for (int ni = 0; ni < NWI; ++ni) {                        \
      const real b = LOAD_B(ni);                                                \
      _Pragma("unroll") for (int mi = 0; mi < MVI; ++mi) acc[ni][mi] += a[mi] * b; \
    }                                                                           \
  }
#define A_VEC(mi) VLOAD(VWM)(0, ak + MSTEP(mi))
#if IMG
// An m-vector of VWM / 4 texels.
#if VWM == 4
#define TEXELS_TO_M(t) (t[0])
#elif VWM == 8
#define TEXELS_TO_M(t) ((float8)(t[0], t[1]))
#else
#define TEXELS_TO_M(t) ((float16)(t[0], t[1], t[2], t[3]))
#endif
// This work-item's MVI m-vectors of row k of A, VWM / 4 texels each; ax: the texel column of
// its first m-vector.
#define IMG_A_ROW(a, k)                                                \
  _Pragma("unroll") for (int mi = 0; mi < MVI; ++mi) {                 \
    float4 t[VWM / 4];                                                 \
    _Pragma("unroll") for (int q = 0; q < VWM / 4; ++q) {              \
      t[q] = TEXEL(A, a_offset, a_width, ax + MSTEP(mi) / 4 + q, k);   \
    }                                                                  \
    a[mi] = TEXELS_TO_M(t);                                            \
  }
// Row k of A times component `comp` of the k-texels b[] (IMG=1 with BK=1).
#define IMG_MAC_BK(k, comp)                                                        \
  {                                                                                \
    realM a[MVI];                                                                  \
    IMG_A_ROW(a, k)                                                                \
    _Pragma("unroll") for (int ni = 0; ni < NWI; ++ni) {                           \
      _Pragma("unroll") for (int mi = 0; mi < MVI; ++mi) acc[ni][mi] += a[mi] * b[ni].comp; \
    }                                                                              \
  }
#endif
// Row k of this work-item's A and B slices in global memory.
#define A_ROW(k) (ag + (k) * lda + MOFF(tid_m))
#if BK
#define B_AT(ni) bk[NSTEP(ni) * ldb]
#define B_ROW(k) (bg + (k) + NOFF(tid_n) * ldb)  // B(k, n) of this work-item's first n
#else
#define B_AT(ni) bk[NSTEP(ni)]  // a CPU broadcasts each scalar straight from memory
#define B_ROW(k) (bg + (k) * ldb + NOFF(tid_n))
#endif

#if EDGE
// Reads of a partial tile stay inside the matrices: an m-vector with 0 < rem < VWM rows left
// repeats its last row, a column of B past N reads column N - 1 (their products land in rows
// and columns of C that are never stored).
inline realM load_m(const __global real* p, const int rem) {
  if (rem == 1) return (realM)(p[0]);  // m = 1, a GEMV: one load
  real t[VWM];
#pragma unroll
  for (int l = 0; l < VWM; ++l) t[l] = p[min(l, rem - 1)];
  return VLOAD(VWM)(0, t);
}
#define A_EDGE(mi)                                                                    \
  (m_rem[mi] >= VWM ? A_VEC(mi)                                                       \
                    : m_rem[mi] > 0 ? load_m(ak + MSTEP(mi), m_rem[mi]) : (realM)0)
#define B_EDGE(ni) bk[b_off[ni]]
#if BK
#define B_ROW_EDGE(k) (bg + (k))  // B(k, n0); b_off holds n * ldb
#else
#define B_ROW_EDGE(k) (bg + (k) * ldb)
#endif
#endif

__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1)))
void gemm_tiled(const int M, const int N, const int K, const real alpha, const real beta,
                OPERAND A, const int a_offset, const int lda, const int a_panel,
                OPERAND B, const int b_offset, const int ldb, const int b_panel,
                __global real* C, const int c_offset, const int ldc, const int a_stride,
                const int b_stride, const int c_stride) {
  const int tid_m = get_local_id(0);
  const int tid_n = get_local_id(1);
  const int m0 = get_group_id(0) * MWG;
  const int n0 = get_group_id(1) * NWG;
  const int item = get_group_id(2);  // the host keeps every item's last element below 2^31
#if IMG
  // Texels in a row: one panel, all of m (or n), or a column of k with BK=1.
  const int a_width = lda / 4, b_width = ldb / 4;
#else
  const __global real* ag = A + a_offset + item * a_stride + get_group_id(0) * a_panel;
  const __global real* bg = B + b_offset + item * b_stride + get_group_id(1) * b_panel;
#endif
#if SA
  __local real alm[KWG * MWG];
#endif
#if SB
  __local real blm[KWG * NWG];
#endif
#if SA || SB
  const int tid = tid_n * MDIMC + tid_m;
#endif

  realM acc[NWI][MVI];
#pragma unroll
  for (int ni = 0; ni < NWI; ++ni) {
#pragma unroll
    for (int mi = 0; mi < MVI; ++mi) acc[ni][mi] = (realM)0;
  }

#if EDGE
  // Work-groups on whole tiles take the unguarded path; K's remainder follows the slices.
  const int k_whole = K - K % KWG;
  const bool whole = m0 + MWG <= M && n0 + NWG <= N;
  if (whole) {
#else
  const int k_whole = K;  // the host pads K, or it is a multiple of KWG (in place)
#endif
  for (int kw = 0; kw < k_whole; kw += KWG) {
#if SA
    // Neighbouring work-items load neighbouring vectors of a row (coalesced on GPUs).
    for (int kk = 0; kk < KWA; ++kk) {
      const int k = tid / MDIMA + kk * KDIMA;
      for (int v = 0; v < MVA; ++v) {
        const int mv = tid % MDIMA + v * MDIMA;
        VSTORE(VWM)(VLOAD(VWM)(0, ag + (kw + k) * lda + mv * VWM), 0, alm + k * MWG + mv * VWM);
      }
    }
#endif
#if SB
    for (int kk = 0; kk < KWB; ++kk) {
      const int k = tid / NDIMB + kk * KDIMB;
      for (int v = 0; v < NVB; ++v) {
        const int nv = tid % NDIMB + v * NDIMB;
        VSTORE(VWN)(VLOAD(VWN)(0, bg + (kw + k) * ldb + nv * VWN), 0, blm + k * NWG + nv * VWN);
      }
    }
#endif
#if SYNC_LOCAL
    barrier(CLK_LOCAL_MEM_FENCE);
#endif

#if IMG && BK
    // B k-contiguous (read where the caller keeps it): a texel holds four k of one column, so
    // each step takes four k rows; KWI=8 unrolls two steps (KWI=1 and 2 build the same code).
    const int ax = (m0 + MOFF(tid_m)) / 4;
#if KWI == 8
#pragma unroll 2
#endif
    for (int kq = 0; kq < KWG; kq += 4) {
      float4 b[NWI];
#pragma unroll
      for (int ni = 0; ni < NWI; ++ni) {
        b[ni] = TEXEL(B, b_offset, b_width, (kw + kq) / 4, n0 + NOFF(tid_n) + NSTEP(ni));
      }
      IMG_MAC_BK(kw + kq, x)
      IMG_MAC_BK(kw + kq + 1, y)
      IMG_MAC_BK(kw + kq + 2, z)
      IMG_MAC_BK(kw + kq + 3, w)
    }
#else
    for (int kp = 0; kp < KWG; kp += KWI) {
#pragma unroll
      for (int ku = 0; ku < KWI; ++ku) {
        const int k = kp + ku;
#if IMG
        // Texel columns of this work-item's first m-vector and n-group in row kw + k.
        const int ax = (m0 + MOFF(tid_m)) / 4, bx = (n0 + NOFF(tid_n)) / 4;
        realM a[MVI];
        IMG_A_ROW(a, kw + k)
#pragma unroll
        for (int ng = 0; ng < NWI / 4; ++ng) {
          // Four consecutive n of one texel: NSTEP keeps groups of VWN (a multiple of 4) together.
          const float4 b4 = TEXEL(B, b_offset, b_width, bx + NSTEP(ng * 4) / 4, kw + k);
#pragma unroll
          for (int mi = 0; mi < MVI; ++mi) {
            acc[ng * 4 + 0][mi] += a[mi] * b4.x;
            acc[ng * 4 + 1][mi] += a[mi] * b4.y;
            acc[ng * 4 + 2][mi] += a[mi] * b4.z;
            acc[ng * 4 + 3][mi] += a[mi] * b4.w;
          }
        }
#else
        // Row k of this work-item's A and B slices.
#if SA
        const __local real* ak = alm + k * MWG + MOFF(tid_m);
#else
        const __global real* ak = A_ROW(kw + k);
#endif
#if SB
        const __local real* bk = blm + k * NWG + NOFF(tid_n);
#else
        const __global real* bk = B_ROW(kw + k);
#endif
        MAC_ROW(A_VEC, B_AT)
#endif  // IMG
      }
    }
#endif  // IMG && BK
#if SYNC_LOCAL
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }
#if EDGE
  for (int k = k_whole; k < K; ++k) {
    const __global real* ak = A_ROW(k);
    const __global real* bk = B_ROW(k);
    MAC_ROW(A_VEC, B_AT)
  }
  } else {
    // A partial tile: rows of A left per m-vector, columns of B clamped into the matrix.
    int m_rem[MVI], b_off[NWI];
#pragma unroll
    for (int mi = 0; mi < MVI; ++mi) m_rem[mi] = M - (m0 + MOFF(tid_m) + MSTEP(mi));
#pragma unroll
    for (int ni = 0; ni < NWI; ++ni) {
      const int n = min(NOFF(tid_n) + NSTEP(ni), N - 1 - n0);
      b_off[ni] = BK ? n * ldb : n;
    }
    // One row at a time: PoCL compiles a kernel for its work-group size at the first launch,
    // and unrolled copies of this path made that 40 % longer for no measurable speed.
    for (int k = 0; k < K; ++k) {
      const __global real* ak = A_ROW(k);
      const __global real* bk = B_ROW_EDGE(k);
      MAC_ROW(A_EDGE, B_EDGE)
    }
    __global real* cg = C + c_offset + item * c_stride;
#pragma unroll
    for (int ni = 0; ni < NWI; ++ni) {
      const int n = n0 + NVEC(tid_n, ni / VWN) * VWN + ni % VWN;
      if (n >= N) continue;
#pragma unroll
      for (int mi = 0; mi < MVI; ++mi) {
        const int m = m0 + MVEC(tid_m, mi) * VWM;
        __global real* c = cg + n * ldc + m;
        realM r = alpha * acc[ni][mi];
        if (M - m >= VWM) {
          if (beta != (real)0) r += beta * VLOAD(VWM)(0, c);  // BLAS: beta = 0 never reads C
          VSTORE(VWM)(r, 0, c);
        } else {
          real t[VWM];
          VSTORE(VWM)(r, 0, t);
          for (int l = 0; l < M - m; ++l) c[l] = beta != (real)0 ? t[l] + beta * c[l] : t[l];
        }
      }
    }
    return;
  }
#endif

  // One row pointer per n and constant steps: with a beta test or longer address arithmetic
  // per store, llvmpipe held no more than 64 accumulators in registers (16 x 16 of C per
  // work-item: 1.0 against 36 GFLOPS; docs/kernels.md).
  __global real* const cw =
      C + c_offset + item * c_stride + (n0 + NOFF(tid_n)) * ldc + m0 + MOFF(tid_m);
#pragma unroll
  for (int ni = 0; ni < NWI; ++ni) {
    __global real* const c = cw + NSTEP(ni) * ldc;
#pragma unroll
    for (int mi = 0; mi < MVI; ++mi) {
      realM r = alpha * acc[ni][mi];
#if CBETA
      if (beta != (real)0) r += beta * VLOAD(VWM)(0, c + MSTEP(mi));  // BLAS: beta = 0 never reads C
#endif
      VSTORE(VWM)(r, 0, c + MSTEP(mi));
    }
  }
}
