/* Linux's accel/ethosu register sequence (../shared/DRIVERS.md section 2),
 * over the platform of drivers.h: the reset of probe and runtime resume,
 * a job's submission, its interrupt and its timeout. */
#include <stdio.h>

#include "drivers.h"
#include "npu_regs.h"

/* Region 2 (the SRAM) on AXI0 counter 0, every other region on AXI1 counter 2. */
#define REGIONCFG 0x0000AA8Au
/* 64-byte bursts with memtype 0xB on counter 0, 256-byte bursts on counter 2. */
#define AXI_LIMIT0 0x1F3F00B0u
#define AXI_LIMIT2 0x1F3F0002u
/* The reset poll: every 1 ms for up to 1 s; here cycles of the NPU's clock. */
#define RESET_POLL_CYCLES 1000u
#define RESET_POLLS 1000

int linux_reset(struct linux_driver *d, struct platform *p) {
    d->platform = p;
    /* Non-secure and user: pending_CSL 1, pending_CPL 0. */
    npu_write(p, NPU_REG_RESET, NPU_REG_RESET_PENDING_CSL_MASK);
    int polls = 0;
    while (npu_read(p, NPU_REG_STATUS) & NPU_REG_STATUS_RESET_STATUS_MASK) {
        if (++polls == RESET_POLLS) {
            fprintf(stderr, "accel/ethosu: the reset never ends\n");
            return -1;
        }
        delay(p, RESET_POLL_CYCLES);
    }
    if (!(npu_read(p, NPU_REG_PROT) & NPU_REG_PROT_ACTIVE_CSL_MASK)) {
        fprintf(stderr, "accel/ethosu: warning: the NPU is secure\n");
    }
    npu_write(p, NPU_REG_REGIONCFG, REGIONCFG);
    npu_write(p, NPU_REG_AXI_LIMIT0, AXI_LIMIT0);
    npu_write(p, NPU_REG_AXI_LIMIT2, AXI_LIMIT2);
    return 0;
}

int linux_submit(struct linux_driver *d, const void *stream, uint32_t size,
                 void *const *regions, int n) {
    struct platform *p = d->platform;
    for (int r = 0; r < n && r < 8; r++) {
        if (!regions[r]) continue;
        uint64_t base = remap(p, regions[r]);
        npu_write(p, NPU_REG_BASEP0 + 8 * r, (uint32_t)base);
        npu_write(p, NPU_REG_BASEP1 + 8 * r, (uint32_t)(base >> 32));
    }
    uint64_t qbase = remap(p, stream);
    npu_write(p, NPU_REG_QBASE0, (uint32_t)qbase);
    npu_write(p, NPU_REG_QBASE1, (uint32_t)(qbase >> 32));
    npu_write(p, NPU_REG_QSIZE, size);
    /* A plain write: the Q-channel bits are not kept. */
    npu_write(p, NPU_REG_CMD, NPU_REG_CMD_TRANSITION_TO_RUNNING_STATE_MASK);
    uint32_t qread = npu_read(p, NPU_REG_QREAD);
    while (wait_for_irq(p)) {
        /* The timeout: wait on while the NPU runs and QREAD moves, else a
         * reset (runtime suspend and resume). */
        uint32_t status = npu_read(p, NPU_REG_STATUS), now = npu_read(p, NPU_REG_QREAD);
        if (!(status & NPU_REG_STATUS_STATE_MASK) || now == qread) {
            fprintf(stderr, "accel/ethosu: job timed out, STATUS %#x, QREAD %#x\n", status, now);
            linux_reset(d, p);
            return -1;
        }
        qread = now;
    }
    uint32_t status = npu_read(p, NPU_REG_STATUS);
    if (!(status & NPU_REG_STATUS_IRQ_RAISED_MASK)) {
        fprintf(stderr, "accel/ethosu: an IRQ that is not ours, STATUS %#x\n", status);
        return -1;
    }
    npu_write(p, NPU_REG_CMD, NPU_REG_CMD_CLEAR_IRQ_MASK);
    if (status & (NPU_REG_STATUS_BUS_STATUS_MASK | NPU_REG_STATUS_CMD_PARSE_ERROR_MASK)) {
        fprintf(stderr, "accel/ethosu: job failed, STATUS %#x\n", status);
        return -1;
    }
    return 0;
}
