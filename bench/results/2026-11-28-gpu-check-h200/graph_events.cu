// Which pattern makes cudaGraphExecEventRecordNodeSetEvent fail?
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
__global__ void axpy(double* y, const double* x, long n) {
  for (long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] += 2 * x[i];
}
#define CK(x)                                             \
  do {                                                    \
    cudaError_t e_ = (x);                                 \
    if (e_ != cudaSuccess) {                              \
      printf("  %s -> %s\n", #x, cudaGetErrorString(e_)); \
      cudaGetLastError();                                 \
      return 1;                                           \
    }                                                     \
  } while (0)
int run(bool root_event, bool keep_old, int replays) {
  long n = 1 << 20;
  double *x, *y;
  CK(cudaMalloc(&x, n * 8));
  CK(cudaMalloc(&y, n * 8));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cudaEvent_t c0, c1;
  CK(cudaEventCreate(&c0));
  CK(cudaEventCreate(&c1));
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  if (!root_event) axpy<<<64, 256, 0, s>>>(y, x, n);
  CK(cudaEventRecordWithFlags(c0, s, cudaEventRecordExternal));
  axpy<<<64, 256, 0, s>>>(y, x, n);
  CK(cudaEventRecordWithFlags(c1, s, cudaEventRecordExternal));
  cudaGraph_t g;
  CK(cudaStreamEndCapture(s, &g));
  size_t cnt = 0;
  CK(cudaGraphGetNodes(g, nullptr, &cnt));
  std::vector<cudaGraphNode_t> nodes(cnt);
  CK(cudaGraphGetNodes(g, nodes.data(), &cnt));
  std::vector<cudaGraphNode_t> marks;
  for (auto nd : nodes) {
    cudaGraphNodeType t;
    CK(cudaGraphNodeGetType(nd, &t));
    if (t == cudaGraphNodeTypeEventRecord) marks.push_back(nd);
  }
  cudaGraphExec_t ex;
  CK(cudaGraphInstantiate(&ex, g, 0));
  std::vector<cudaEvent_t> old;
  for (int r = 0; r < replays; ++r) {
    std::vector<cudaEvent_t> evs(marks.size());
    for (size_t i = 0; i < marks.size(); ++i) {
      CK(cudaEventCreate(&evs[i]));
      cudaError_t e = cudaGraphExecEventRecordNodeSetEvent(ex, marks[i], evs[i]);
      if (e != cudaSuccess) {
        printf("  replay %d marker %zu: SetEvent -> %s\n", r, i, cudaGetErrorString(e));
        cudaGetLastError();
        return 1;
      }
    }
    CK(cudaGraphLaunch(ex, s));
    if (!keep_old) {
      for (auto e : old) CK(cudaEventDestroy(e));
      old.clear();
      CK(cudaStreamSynchronize(s));
      for (auto e : evs) CK(cudaEventDestroy(e));
    } else {
      for (auto e : old) CK(cudaEventDestroy(e));
      old = evs;
    }
  }
  CK(cudaStreamSynchronize(s));
  printf("  ok\n");
  return 0;
}
int main() {
  for (int root = 0; root < 2; ++root)
    for (int keep = 0; keep < 2; ++keep) {
      printf("root_event=%d keep_old=%d\n", root, keep);
      run(root, keep, 3);
    }
  // the same events set again (no change)
  return 0;
}
