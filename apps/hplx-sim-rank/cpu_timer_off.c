/* Preloaded into the simulator by hplx sim (LD_PRELOAD; docs/SIM.md).
 *
 * SMPI starts and stops a CPU-time timer of the calling thread around
 * every MPI call (smpi_bench_begin and smpi_bench_end, SimGrid 3.32), to
 * charge the program's own computation between calls to the simulated
 * clock. hplx sim turns that charge off (smpi/simulate-computation:no: the
 * kernel models advance the clock instead), but SMPI still reads the
 * thread's CPU clock twice per call, a system call each time: without
 * them a 1024-rank simulation takes a third less time. These empty timers
 * replace SimGrid's own (libsimgrid calls them through its procedure
 * linkage table), so the readings that nothing uses are not taken. SMPI_SAMPLE blocks, which do
 * use them, are not in hplx. */
void xbt_os_threadtimer_start(void* timer) {
  (void)timer;
}

void xbt_os_threadtimer_resume(void* timer) {
  (void)timer;
}

void xbt_os_threadtimer_stop(void* timer) {
  (void)timer;
}
