/* The register sequences of the two drivers people deploy with an
 * Ethos-U65, written from the facts in ../shared/DRIVERS.md, over the NPU's
 * C API (npu.h): Arm's Ethos-U core driver (under TensorFlow Lite Micro) and
 * Linux's accel/ethosu. The tests' harness (harness.c) runs them. */
#ifndef DRIVERS_H
#define DRIVERS_H

#include <stddef.h>
#include <stdint.h>

#include "npu.h"

/* The host's memory the NPU sees: a buffer and its AXI address. */
struct mapping {
    void *host;
    uint64_t axi;
    size_t size;
};

/* What the drivers need of their platform: register access, the address
 * remapping of host pointers, and the wait for the IRQ (the core driver's
 * weak porting functions; Linux's interrupt). */
struct platform {
    npu_device *device;
    /* PPROT of the CPU's APB accesses: bit 0 privileged, bit 1 non-secure. */
    uint8_t pprot;
    const struct mapping *mappings;
    int n_mappings;
    /* Cycles the IRQ wait may run before it gives up. */
    uint64_t irq_budget;
    /* STATUS and QREAD as the NPU raised its IRQ last, before any handler
     * ran: for the harness's report. */
    uint32_t status_at_irq, qread_at_irq;
    int irq_at_stop;
    /* The first API call that failed (its code; its message is npu_last_error). */
    int api_error;
};

uint32_t npu_read(struct platform *p, uint32_t offset);
void npu_write(struct platform *p, uint32_t offset, uint32_t value);
/* The AXI address of a host pointer into a mapped buffer; 0 if none holds it. */
uint64_t remap(const struct platform *p, const void *host);
/* Runs the device until its IRQ rises; 0 on the IRQ, -1 when the budget ends first. */
int wait_for_irq(struct platform *p);
/* Runs the device `cycles` cycles (a delay between polls). */
void delay(struct platform *p, uint64_t cycles);

/* Arm's Ethos-U core driver. */
struct core_driver {
    struct platform *platform;
    int secure, privileged;
    int power_requested;
};

/* ethosu_init: the CONFIG check, a soft reset, the PROT check, AXI_LIMIT. 0 or -1. */
int core_init(struct core_driver *d, struct platform *p, int secure, int privileged);
/* ethosu_invoke with the operator's payload (COP1) and base addresses (host
 * pointers, at most 8): 0, or -1 after the driver's error handling (STATUS,
 * QREAD, STATUS read, a soft reset). */
int core_invoke(struct core_driver *d, const uint8_t *payload, size_t size,
                void *const *base_addresses, int n_base_addresses);
/* The driver's soft reset (ethosu_dev_soft_reset). 0 or -1. */
int core_soft_reset(struct core_driver *d);

/* Linux's accel/ethosu. */
struct linux_driver {
    struct platform *platform;
};

/* The reset of probe and runtime resume: 0, or -1 on a reset that never ends. */
int linux_reset(struct linux_driver *d, struct platform *p);
/* One job: the stream at `stream` (a mapped host buffer) and a buffer per
 * region (NULL: none); 0, or -1 when it fails (bus error, parse error,
 * timeout: then a reset). */
int linux_submit(struct linux_driver *d, const void *stream, uint32_t size,
                 void *const *regions, int n_regions);

#endif
