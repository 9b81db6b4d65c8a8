// demo.hip with its `scale` kernel made slower on purpose.
#define BASELINE_DEMO_SLOW 1
#include "demo.hip"
