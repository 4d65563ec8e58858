#include <malloc.h>
#include <stddef.h>

/// Bytes malloc has handed out and not yet been given back (glibc's mallinfo2).
static inline size_t badminton_heap_in_use(void) {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}
