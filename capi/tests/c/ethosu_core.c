/* Arm's Ethos-U core driver's register sequence (../shared/DRIVERS.md section
 * 1), over the platform of drivers.h: init, the soft reset, and invoke with
 * its payload handling, power request and release, and interrupt handler. */
#include <stdio.h>
#include <string.h>

#include "drivers.h"
#include "npu_regs.h"

/* The core driver's U65 defaults (ethosu_config_u65.h): 64-byte bursts,
 * memtype 0, 64 outstanding reads, 32 outstanding writes. */
#define AXI_LIMIT_DEFAULT 0x1F3F0000u
#define RESET_POLLS 100000
#define COP1 0x31504F43u
#define ACTION_OPTIMIZER_CONFIG 1u
#define ACTION_COMMAND_STREAM 2u
#define ACTION_NOP 5u
#define Q_ENABLES (NPU_REG_CMD_CLOCK_Q_ENABLE_MASK | NPU_REG_CMD_POWER_Q_ENABLE_MASK)

static uint32_t field(uint32_t value, uint32_t mask, uint32_t shift) {
    return (value & mask) >> shift;
}

int core_soft_reset(struct core_driver *d) {
    struct platform *p = d->platform;
    /* pending_CPL: 1 privileged; pending_CSL: 1 non-secure. */
    uint32_t reset = (d->privileged ? NPU_REG_RESET_PENDING_CPL_MASK : 0) |
                     (d->secure ? 0 : NPU_REG_RESET_PENDING_CSL_MASK);
    npu_write(p, NPU_REG_RESET, reset);
    int polls = 0;
    while (npu_read(p, NPU_REG_STATUS) & NPU_REG_STATUS_RESET_STATUS_MASK) {
        if (++polls == RESET_POLLS) break;
    }
    if (npu_read(p, NPU_REG_STATUS) & NPU_REG_STATUS_RESET_STATUS_MASK) {
        fprintf(stderr, "core driver: soft reset timed out\n");
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        uint32_t prot = npu_read(p, NPU_REG_PROT);
        int csl = field(prot, NPU_REG_PROT_ACTIVE_CSL_MASK, NPU_REG_PROT_ACTIVE_CSL_SHIFT);
        int cpl = field(prot, NPU_REG_PROT_ACTIVE_CPL_MASK, NPU_REG_PROT_ACTIVE_CPL_SHIFT);
        if (csl != !d->secure || cpl != !!d->privileged) {
            fprintf(stderr, "core driver: PROT %#x after the soft reset\n", prot);
            return -1;
        }
    }
    npu_write(p, NPU_REG_AXI_LIMIT0, AXI_LIMIT_DEFAULT);
    npu_write(p, NPU_REG_AXI_LIMIT1, AXI_LIMIT_DEFAULT);
    npu_write(p, NPU_REG_AXI_LIMIT2, AXI_LIMIT_DEFAULT);
    npu_write(p, NPU_REG_AXI_LIMIT3, AXI_LIMIT_DEFAULT);
    return 0;
}

int core_init(struct core_driver *d, struct platform *p, int secure, int privileged) {
    d->platform = p;
    d->secure = secure;
    d->privileged = privileged;
    d->power_requested = 0;
    uint32_t config = npu_read(p, NPU_REG_CONFIG);
    if (field(config, NPU_REG_CONFIG_PRODUCT_MASK, NPU_REG_CONFIG_PRODUCT_SHIFT) != 1) {
        fprintf(stderr, "core driver: CONFIG %#x is not an Ethos-U65\n", config);
        return -1;
    }
    return core_soft_reset(d);
}

/* Keep the Q-channel enables of CMD, then set `bits`. */
static void write_cmd(struct platform *p, uint32_t bits) {
    npu_write(p, NPU_REG_CMD, (npu_read(p, NPU_REG_CMD) & Q_ENABLES) | bits);
}

/* OPTIMIZER_CONFIG: the NPU's CONFIG and ID against what Vela compiled for. */
static int check_config(struct platform *p, uint32_t config, uint32_t id) {
    uint32_t npu_config = npu_read(p, NPU_REG_CONFIG);
    uint32_t npu_id = npu_read(p, NPU_REG_ID);
    if (config != npu_config) {
        static const uint32_t masks[] = {NPU_REG_CONFIG_PRODUCT_MASK,
                                         NPU_REG_CONFIG_MACS_PER_CC_MASK,
                                         NPU_REG_CONFIG_CMD_STREAM_VERSION_MASK};
        for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++) {
            if ((config & masks[i]) != (npu_config & masks[i])) {
                fprintf(stderr, "core driver: compiled for CONFIG %#x, the NPU has %#x\n",
                        config, npu_config);
                return -1;
            }
        }
        /* custom_dma: bit 27; asked but not present fails. */
        if ((config & (1u << 27)) && !(npu_config & (1u << 27))) return -1;
    }
    uint32_t major = NPU_REG_ID_ARCH_MAJOR_REV_MASK, minor = NPU_REG_ID_ARCH_MINOR_REV_MASK;
    if ((id & major) != (npu_id & major) ||
        field(npu_id, minor, NPU_REG_ID_ARCH_MINOR_REV_SHIFT) <
            field(id, minor, NPU_REG_ID_ARCH_MINOR_REV_SHIFT)) {
        fprintf(stderr, "core driver: compiled for ID %#x, the NPU has %#x\n", id, npu_id);
        return -1;
    }
    return 0;
}

/* The interrupt handler: clear the IRQ, then STATUS decides. */
static int irq_handler(struct platform *p) {
    write_cmd(p, NPU_REG_CMD_CLEAR_IRQ_MASK);
    uint32_t status = npu_read(p, NPU_REG_STATUS);
    uint32_t errors = NPU_REG_STATUS_BUS_STATUS_MASK | NPU_REG_STATUS_CMD_PARSE_ERROR_MASK |
                      NPU_REG_STATUS_WD_FAULT_MASK | NPU_REG_STATUS_ECC_FAULT_MASK;
    if ((status & errors) || !(status & NPU_REG_STATUS_CMD_END_REACHED_MASK)) {
        fprintf(stderr, "core driver: the inference failed, STATUS %#x\n", status);
        return -1;
    }
    return 0;
}

static int power_request(struct core_driver *d) {
    if (d->power_requested++ == 0) {
        if (core_soft_reset(d)) return -1;
        /* CMD & 0xC with the clock and power Q enables cleared: 0. */
        (void)npu_read(d->platform, NPU_REG_CMD);
        npu_write(d->platform, NPU_REG_CMD, 0);
    }
    return 0;
}

static void power_release(struct core_driver *d) {
    if (--d->power_requested == 0) {
        (void)npu_read(d->platform, NPU_REG_CMD);
        npu_write(d->platform, NPU_REG_CMD, Q_ENABLES);
    }
}

static int run_stream(struct core_driver *d, const uint32_t *stream, uint32_t words,
                      void *const *base_addresses, int n) {
    struct platform *p = d->platform;
    uint64_t qbase = remap(p, stream);
    npu_write(p, NPU_REG_QBASE0, (uint32_t)qbase);
    npu_write(p, NPU_REG_QBASE1, (uint32_t)(qbase >> 32));
    npu_write(p, NPU_REG_QSIZE, words * 4);
    npu_write(p, NPU_REG_QCONFIG, 2);
    uint32_t regioncfg = 0;
    for (int i = 0; i < n; i++) {
        uint64_t base = remap(p, base_addresses[i]);
        npu_write(p, NPU_REG_BASEP0 + 8 * i, (uint32_t)base);
        npu_write(p, NPU_REG_BASEP1 + 8 * i, (uint32_t)(base >> 32));
        regioncfg |= (i == 0 ? 3u : i == 1 ? 2u : 1u) << (2 * i);
    }
    npu_write(p, NPU_REG_REGIONCFG, regioncfg);
    write_cmd(p, NPU_REG_CMD_TRANSITION_TO_RUNNING_STATE_MASK);
    if (wait_for_irq(p)) {
        fprintf(stderr, "core driver: no IRQ within the budget\n");
        return -1;
    }
    return irq_handler(p);
}

int core_invoke(struct core_driver *d, const uint8_t *payload, size_t size,
                void *const *base_addresses, int n) {
    struct platform *p = d->platform;
    const uint32_t *words = (const uint32_t *)payload;
    size_t n_words = size / 4;
    if (size % 4 || n_words < 1 || words[0] != COP1 || n > 8) {
        fprintf(stderr, "core driver: not a COP1 payload\n");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if ((uintptr_t)base_addresses[i] % 16) return -1;
    }
    if (power_request(d)) return -1;
    int result = 0;
    for (size_t i = 1; i < n_words && result == 0;) {
        uint32_t header = words[i];
        uint32_t command = header & 0xff, extra = (header >> 8) & 0xff, data = header >> 16;
        if (command == ACTION_OPTIMIZER_CONFIG && i + 2 < n_words) {
            result = check_config(p, words[i + 1], words[i + 2]);
            i += 3;
        } else if (command == ACTION_NOP) {
            i += 1;
        } else if (command == ACTION_COMMAND_STREAM) {
            uint32_t length = (extra << 16) | data;
            const uint32_t *stream = &words[i + 1];
            if (i + 1 + length > n_words || (uintptr_t)stream % 16) {
                result = -1;
                break;
            }
            result = run_stream(d, stream, length, base_addresses, n);
            i += 1 + length;
        } else {
            fprintf(stderr, "core driver: payload action %u\n", command);
            result = -1;
        }
    }
    if (result) {
        /* The driver's error path: report, then a soft reset. */
        (void)npu_read(p, NPU_REG_STATUS);
        (void)npu_read(p, NPU_REG_QREAD);
        (void)npu_read(p, NPU_REG_STATUS);
        core_soft_reset(d);
    }
    power_release(d);
    return result;
}
