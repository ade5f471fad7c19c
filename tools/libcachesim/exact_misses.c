/* Exact hit and miss counts of one libCacheSim eviction algorithm over an oracleGeneral trace, every
 * object one unit (as cachesim --ignore-obj-size 1), printed as one csv line
 * ALGO,PARAMS,SIZE,HITS,MISSES. cachesim itself prints miss ratios to 4 decimals only, which on the
 * Mooncake stream is about 12 misses; the comparison needs them exactly. It uses libCacheSim's public
 * API only (open_trace, <Algo>_init, cache->get); tools/libcachesim-compare.sh builds it outside the
 * repository against a libCacheSim build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libCacheSim.h"
#include "libCacheSim/evictionAlgo.h"

typedef cache_t *(*init_fn)(const common_cache_params_t, const char *);
static init_fn pick(const char *n) {
  if (!strcmp(n, "clock")) return Clock_init;
  if (!strcmp(n, "lirs")) return LIRS_init;
  if (!strcmp(n, "lfuda")) return LFUDA_init;
  if (!strcmp(n, "gdsf")) return GDSF_init;
  if (!strcmp(n, "lecar")) return LeCaR_init;
  if (!strcmp(n, "qdlp")) return QDLP_init;
  if (!strcmp(n, "lru")) return LRU_init;
  fprintf(stderr, "unknown %s\n", n); exit(2);
}
int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "driver TRACE ALGO SIZE [PARAMS]\n"); return 2; }
  reader_t *reader = open_trace(argv[1], ORACLE_GENERAL_TRACE, NULL);
  common_cache_params_t p = default_common_cache_params();
  p.cache_size = atoll(argv[3]);
  cache_t *cache = pick(argv[2])(p, argc > 4 ? argv[4] : NULL);
  request_t *req = new_request();
  long hits = 0, misses = 0;
  while (read_one_req(reader, req) == 0) {
    req->obj_size = 1;
    if (cache->get(cache, req)) hits++; else misses++;
  }
  printf("%s,%s,%s,%ld,%ld\n", argv[2], argc > 4 ? argv[4] : "", argv[3], hits, misses);
  return 0;
}
