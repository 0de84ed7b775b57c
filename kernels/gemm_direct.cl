// Direct GEMM: any shape, leading dimension and transposition in one kernel, without copies.
// Column-major: A(m,k) = A[m + k*lda] (or A[k + m*lda] transposed), B(k,n) = B[k + n*ldb] (or
// B[n + k*ldb]), C(m,n) = C[m + n*ldc]; the host maps row-major problems onto this form.
// A work-group computes a WGD x WGD tile of C through WGD x WGD tiles of A and B staged in local
// memory; loads and stores outside the matrices are guarded (zeros are loaded instead).

#ifndef WGD
#define WGD 16  // tile size in m, n and k
#endif
#ifndef MDIMCD
#define MDIMCD 8  // work-group size in m
#endif
#ifndef NDIMCD
#define NDIMCD 8  // work-group size in n
#endif
#ifndef MDIMAD
#define MDIMAD MDIMCD  // work-items along the contiguous dimension for the load of A
#endif
#ifndef NDIMBD
#define NDIMBD NDIMCD  // work-items along the contiguous dimension for the load of B
#endif
#ifndef KWID
#define KWID 2  // unroll factor of the innermost k loop
#endif
#ifndef VWMD
#define VWMD 1  // vector width in m of the accumulators and the local-memory reads of A
#endif
#ifndef VWND
#define VWND 1  // vector width in n of the local-memory reads of B
#endif
#ifndef PADA
#define PADA 1  // padding of each local-memory row of A (avoids bank conflicts)
#endif
#ifndef PADB
#define PADB 1  // padding of each local-memory row of B
#endif

#define MWID (WGD / MDIMCD)                  // micro tile in m per work-item
#define NWID (WGD / NDIMCD)                  // micro tile in n per work-item
#define MVID (MWID / VWMD)                   // m-vectors per work-item
#define NVID (NWID / VWND)                   // n-vectors per work-item
#define KDIMAD ((MDIMCD * NDIMCD) / MDIMAD)  // work-items along the other dimension, load of A
#define KDIMBD ((MDIMCD * NDIMCD) / NDIMBD)  // work-items along the other dimension, load of B
#define LDAL (WGD + PADA)                    // row length of A in local memory
#define LDBL (WGD + PADB)                    // row length of B in local memory

// A work-group of one work-item needs no barrier (and some compilers mishandle barriers there).
#define SYNC_LOCAL (MDIMCD * NDIMCD > 1)

#define realMD VREAL(VWMD)
#define realND VREAL(VWND)

// Copies the WGD x WGD tile of a column-major operand, rows [r0, r0+WGD) x columns [c0, c0+WGD)
// of the logical matrix (rows = m or n, columns = k) into local memory as tile[k * ld + row].
// `trans` says the operand is stored transposed. DIM is the number of work-items along the
// memory-contiguous dimension, so that neighbouring work-items read neighbouring addresses.
#define LOAD_TILE(NAME, DIM, KDIM)                                                             \
  inline void NAME(const __global real* restrict g, const int ld, const int trans,             \
                   const int rows, const int cols, const int r0, const int c0,                 \
                   __local real* tile, const int tile_ld, const int tid) {                     \
    for (int j = tid / DIM; j < WGD; j += KDIM) {                                              \
      for (int i = tid % DIM; i < WGD; i += DIM) {                                             \
        const int r = trans ? j : i; /* row within the tile */                                 \
        const int c = trans ? i : j; /* k within the tile */                                   \
        const int gr = r0 + r, gc = c0 + c;                                                    \
        real v = (real)0;                                                                      \
        if (gr < rows && gc < cols) v = trans ? g[gc + gr * ld] : g[gr + gc * ld];             \
        tile[c * tile_ld + r] = v;                                                             \
      }                                                                                        \
    }                                                                                          \
  }
LOAD_TILE(load_tile_a, MDIMAD, KDIMAD)
LOAD_TILE(load_tile_b, NDIMBD, KDIMBD)

inline void gemm_direct_body(const int M, const int N, const int K, const real alpha,
                             const real beta, const __global real* restrict A, const int lda,
                             const int a_trans, const __global real* restrict B, const int ldb,
                             const int b_trans, __global real* C, const int ldc,
                             __local real* alm, __local real* blm) {
  const int tid_m = get_local_id(0);
  const int tid_n = get_local_id(1);
  const int tid = tid_n * MDIMCD + tid_m;
  const int m0 = get_group_id(0) * WGD;
  const int n0 = get_group_id(1) * WGD;

  realMD acc[NWID][MVID];
#pragma unroll
  for (int ni = 0; ni < NWID; ++ni) {
#pragma unroll
    for (int mi = 0; mi < MVID; ++mi) acc[ni][mi] = (realMD)0;
  }

  for (int kw = 0; kw < K; kw += WGD) {
    // B is K x N: as an operand "rows = n, columns = k" it is stored transposed when not b_trans.
    load_tile_a(A, lda, a_trans, M, K, m0, kw, alm, LDAL, tid);
    load_tile_b(B, ldb, !b_trans, N, K, n0, kw, blm, LDBL, tid);
#if SYNC_LOCAL
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    for (int kp = 0; kp < WGD; kp += KWID) {
#pragma unroll
      for (int ku = 0; ku < KWID; ++ku) {
        const int k = kp + ku;
        // Row k of this work-item's tiles: every access below is a constant offset.
        const __local real* ak = alm + k * LDAL + tid_m * VWMD;
        const __local real* bk = blm + k * LDBL + tid_n * VWND;
        realMD a[MVID];
#pragma unroll
        for (int mi = 0; mi < MVID; ++mi) a[mi] = VLOAD(VWMD)(0, ak + mi * MDIMCD * VWMD);
#pragma unroll
        for (int ni = 0; ni < NWID; ++ni) {
          const real b = bk[(ni / VWND) * NDIMCD * VWND + ni % VWND];
#pragma unroll
          for (int mi = 0; mi < MVID; ++mi) acc[ni][mi] += a[mi] * b;
        }
      }
    }
#if SYNC_LOCAL
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }

#pragma unroll
  for (int ni = 0; ni < NWID; ++ni) {
    const int n = n0 + ((ni / VWND) * NDIMCD + tid_n) * VWND + ni % VWND;
    if (n >= N) continue;
#pragma unroll
    for (int mi = 0; mi < MVID; ++mi) {
      real r[VWMD];
      VSTORE(VWMD)(acc[ni][mi], 0, r);
      const int mb = m0 + (mi * MDIMCD + tid_m) * VWMD;
#pragma unroll
      for (int l = 0; l < VWMD; ++l) {
        const int m = mb + l;
        if (m < M) {
          __global real* c = C + m + n * ldc;
          *c = (beta != (real)0) ? alpha * r[l] + beta * *c : alpha * r[l];
        }
      }
    }
  }
}

#ifndef TRANS_A
#define TRANS_A 0  // A is stored transposed (set by the host from the problem, not tuned)
#endif
#ifndef TRANS_B
#define TRANS_B 0  // B is stored transposed (set by the host from the problem, not tuned)
#endif

// The transpositions are compile-time constants so the compiler specialises the index
// arithmetic and builds only the variant the problem needs. A strided batch is one launch:
// dimension 2 of the range numbers the items, each `*_stride` elements after the one before.
__kernel __attribute__((reqd_work_group_size(MDIMCD, NDIMCD, 1)))
void gemm_direct(const int M, const int N, const int K, const real alpha, const real beta,
                 const __global real* restrict A, const int a_offset, const int lda,
                 const __global real* restrict B, const int b_offset, const int ldb,
                 __global real* C, const int c_offset, const int ldc, const int a_stride,
                 const int b_stride, const int c_stride) {
  __local real alm[WGD * LDAL];
  __local real blm[WGD * LDBL];
  const int item = get_group_id(2);  // the host keeps every item's last element below 2^31
  gemm_direct_body(M, N, K, alpha, beta, A + a_offset + item * a_stride, lda, TRANS_A,
                   B + b_offset + item * b_stride, ldb, TRANS_B, C + c_offset + item * c_stride,
                   ldc, alm, blm);
}
