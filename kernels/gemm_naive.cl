// Baseline: one work-item per element of C, straight from global memory. Column-major, any shape
// and transposition (a_trans / b_trans), like gemm_direct.cl. Shows what tuning gains.

__kernel void gemm_naive(const int M, const int N, const int K, const real alpha,
                         const real beta, const __global real* restrict A, const int a_offset,
                         const int lda, const int a_trans, const __global real* restrict B,
                         const int b_offset, const int ldb, const int b_trans,
                         __global real* C, const int c_offset, const int ldc) {
  const int m = get_global_id(0);
  const int n = get_global_id(1);
  if (m >= M || n >= N) return;
  A += a_offset;
  B += b_offset;
  real sum = (real)0;
  for (int k = 0; k < K; ++k) {
    const real a = a_trans ? A[k + m * lda] : A[m + k * lda];
    const real b = b_trans ? B[n + k * ldb] : B[k + n * ldb];
    sum += a * b;
  }
  __global real* c = C + c_offset + m + n * ldc;
  *c = (beta != (real)0) ? alpha * sum + beta * *c : alpha * sum;
}
