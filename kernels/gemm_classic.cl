// Baseline: the classic TILE x TILE local-memory kernel, one element of C per work-item and a
// barrier per tile. Column-major, any shape and transposition, edges guarded.

#ifndef TILE
#define TILE 16  // work-group size and tile size in m, n and k
#endif

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void gemm_classic(const int M, const int N, const int K, const real alpha, const real beta,
                  const __global real* restrict A, const int a_offset, const int lda,
                  const int a_trans, const __global real* restrict B, const int b_offset,
                  const int ldb, const int b_trans, __global real* C, const int c_offset,
                  const int ldc) {
  __local real at[TILE][TILE + 1];  // at[k][m]; +1 avoids bank conflicts
  __local real bt[TILE][TILE + 1];  // bt[n][k]
  const int lm = get_local_id(0);
  const int ln = get_local_id(1);
  const int m = get_group_id(0) * TILE + lm;
  const int n = get_group_id(1) * TILE + ln;
  A += a_offset;
  B += b_offset;
  real sum = (real)0;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    const int ka = k0 + ln;  // this work-item loads A(m, ka) and B(kb, n)
    const int kb = k0 + lm;
    at[ln][lm] = (m < M && ka < K) ? (a_trans ? A[ka + m * lda] : A[m + ka * lda]) : (real)0;
    bt[ln][lm] = (n < N && kb < K) ? (b_trans ? B[n + kb * ldb] : B[kb + n * ldb]) : (real)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k) sum += at[k][lm] * bt[ln][k];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (m < M && n < N) {
    __global real* c = C + c_offset + m + n * ldc;
    *c = (beta != (real)0) ? alpha * sum + beta * *c : alpha * sum;
  }
}
