/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* capture's printers: a frame a line or a JSON document, and the summary at its end. */
#ifndef XRL_CAPTURE_PRINT_H
#define XRL_CAPTURE_PRINT_H

#include <time.h>
#include "capture/capture.h"
#include "rules/rule.h"

/* A frame the program copied, as capture shows it. */
struct cap_frame {
	const char *iface;
	const struct xrl_cap_rec *rec;
	const __u8 *data;	     /* rec->caplen bytes of it */
	const struct xrl_spec *rule; /* the rule that decided, or NULL */
	struct timespec ts;	     /* CLOCK_REALTIME */
};

void cap_frame_plain(const struct cap_frame *f);
void cap_frame_json(const struct cap_frame *f);

/* What a capture did, said when it ends. */
struct cap_summary {
	const char *iface;
	bool passed;	  /* it captured passed frames, not dropped ones */
	const char *to;	  /* where the frames went, in words */
	bool pcap_stdout; /* -w -: the JSON summary goes to standard error */
	struct xrl_cap_counts n;
	__u64 written, beyond;
	__u32 max_rate;
	const char *ended; /* why */
};

void cap_summary_plain(const struct cap_summary *s);
void cap_summary_json(const struct cap_summary *s);

#endif /* XRL_CAPTURE_PRINT_H */
