#include "CHeapInfo.h"
