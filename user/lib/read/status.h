/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* status: every loaded instance, read from its pins. */
#ifndef XRL_STATUS_H
#define XRL_STATUS_H

#include <net/if.h>
#include <stdbool.h>
#include "base/maps.h"
#include "rules/rule.h"

#define XRL_STATUS_GLOBALS 16

struct xrl_status {
	char iface[IF_NAMESIZE]; /* its name now; empty when gone or in another network namespace */
	struct xrl_ifid id;	 /* what it is loaded on */
	bool here;		 /* in this network namespace */
	bool gone;		 /* its device was deleted: nothing enforces its rules */
	bool loading;		 /* a load or unload held the pin root while it was read: err is no fault */
	char dir[PATH_MAX];	 /* its pins */
	bool attached;		 /* the pinned link still holds the program on the interface */
	__u32 prog_id;
	__u32 features;	  /* what the program carries (specialise.h) */
	bool features_ok; /* ... read from it */
	struct xrl_ctl ctl;
	size_t rules, keys;
	__u32 max_prefixes;   /* load --max-prefixes; 0 when unknown */
	size_t prefixes;      /* what the rules in force hold of them */
	__u32 then_id;	      /* the program passed frames go on to (chain.h); 0: none */
	__u32 verified_insns; /* instructions the verifier walked to load the program; 0: unknown */
	__u32 capture_pid;    /* the capture running on it (capture.h): its pid; 0: none */
	__u64 capture_ns;     /* ... running for this long */
	char then_name[16];
	__u64 memlock;	      /* bytes charged for the maps */
	__u64 state_memlock;  /* ... of which the window states: max_keys of them */
	__u64 sketch_memlock; /* ... and the sketch of new sources past the cap */
	char err[256];	      /* set when the folder could not be read */
	/* Its global rules (the first XRL_STATUS_GLOBALS), with what the sync agent last wrote of each. */
	struct xrl_status_global {
		struct xrl_spec spec;
		struct xrl_fleet f;
		bool synced; /* f is an agent's, for this rule */
	} global[XRL_STATUS_GLOBALS];
	size_t nglobal;
};

/*
 * What mends an instance before it is read: finishes or undoes a replace a
 * SIGKILL stopped midway (life/journal.h's xrl_recover, which the commands
 * pass: the lifecycle stands above the readers, so they take it rather than
 * call it). 0, or -errno with err.
 */
typedef int xrl_mend_fn(const char *dir, const char *iface, char *err, size_t len);

/* Every loaded instance, in every network namespace, each mended first (mend NULL: read as it is); *out is malloc'd. */
int xrl_status_list(struct xrl_status **out, size_t *n, xrl_mend_fn *mend);

#endif /* XRL_STATUS_H */
