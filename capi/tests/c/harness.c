/* The platform of drivers.h over the NPU's C API, and the test harness that
 * runs a script of driver invocations on one device:
 *
 *   harness SCRIPT RESULT
 *
 * SCRIPT holds one setting or action a line:
 *   config NAME         u65-256 or u65-512
 *   backend NAME        golden or rtl
 *   memory PRESET       a Vela system configuration behind both ports (RTL)
 *   driver NAME         core (Arm's core driver) or linux (accel/ethosu)
 *   levels SECURE PRIV  the core driver's security and privilege (1 or 0)
 *   region K PATH       region K's bytes: a host buffer mapped at (0x10 + K) << 32
 *   payload PATH        the core driver's COP1 payload, or Linux's command stream,
 *                       mapped at 0x20 << 32 (the payload last mapped: so
 *                       after init it takes the place of the one before)
 *   budget CYCLES       the IRQ wait of the next invocations (default 50,000,000)
 *   init                the device's creation and the driver's init (core) or
 *                       reset (linux); again, the driver's alone
 *   invoke              one invocation of the payload on the regions
 * RESULT gets a line per invocation: its return code, STATUS and QREAD as the
 * NPU raised the IRQ, the IRQ then, and the cycles it took; each region's
 * bytes afterwards go to PATH.out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers.h"
#include "npu_regs.h"

#define MAX_REGIONS 8

static uint64_t region_address(int k) { return (uint64_t)(0x10 + k) << 32; }
static const uint64_t PAYLOAD_ADDRESS = (uint64_t)0x20 << 32;

static void api(struct platform *p, int code, const char *what) {
    if (code != NPU_OK && p->api_error == NPU_OK) {
        p->api_error = code;
        fprintf(stderr, "harness: %s: %s (code %d)\n", what, npu_last_error(), code);
    }
}

uint32_t npu_read(struct platform *p, uint32_t offset) {
    uint32_t data = 0;
    int32_t slverr = 0;
    api(p, npu_apb_read(p->device, offset, p->pprot, &data, &slverr), "npu_apb_read");
    return data;
}

void npu_write(struct platform *p, uint32_t offset, uint32_t value) {
    int32_t slverr = 0;
    api(p, npu_apb_write(p->device, offset, value, p->pprot, &slverr), "npu_apb_write");
}

uint64_t remap(const struct platform *p, const void *host) {
    const uint8_t *h = host;
    for (int i = 0; i < p->n_mappings; i++) {
        const uint8_t *base = p->mappings[i].host;
        if (h >= base && h < base + p->mappings[i].size) {
            return p->mappings[i].axi + (uint64_t)(h - base);
        }
    }
    return 0;
}

void delay(struct platform *p, uint64_t cycles) {
    api(p, npu_run(p->device, cycles), "npu_run");
}

int wait_for_irq(struct platform *p) {
    uint64_t ran = 0;
    api(p, npu_run_until_irq(p->device, p->irq_budget, &ran), "npu_run_until_irq");
    int32_t level = 0;
    api(p, npu_irq(p->device, &level), "npu_irq");
    /* What a logic analyser would see as the IRQ rises, before any handler. */
    p->status_at_irq = npu_read(p, NPU_REG_STATUS);
    p->qread_at_irq = npu_read(p, NPU_REG_QREAD);
    p->irq_at_stop = level;
    return level ? 0 : -1;
}

static void *load(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    /* 16-byte aligned, as the drivers require of every buffer. */
    size_t padded = ((size_t)n + 15) / 16 * 16;
    void *buffer = aligned_alloc(16, padded ? padded : 16);
    if (buffer) {
        memset(buffer, 0, padded ? padded : 16);
        if (fread(buffer, 1, (size_t)n, f) != (size_t)n) {
            free(buffer);
            buffer = NULL;
        }
    }
    fclose(f);
    *size = (size_t)n;
    return buffer;
}

struct region {
    char path[512];
    void *host;
    size_t size;
};

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: harness SCRIPT RESULT\n");
        return 2;
    }
    FILE *script = fopen(argv[1], "r");
    FILE *result = fopen(argv[2], "w");
    if (!script || !result) {
        fprintf(stderr, "harness: cannot open %s or %s\n", argv[1], argv[2]);
        return 2;
    }
    npu_device_config config;
    npu_device_config_init(&config);
    char configuration[64] = "u65-256", preset[128] = "", driver[16] = "core";
    struct region regions[MAX_REGIONS];
    memset(regions, 0, sizeof regions);
    void *payload = NULL;
    size_t payload_size = 0;
    int secure = 1, privileged = 1;
    struct platform p = {.pprot = 1, .irq_budget = 50000000};
    struct core_driver core;
    struct linux_driver linux_driver;
    struct mapping mappings[MAX_REGIONS + 1];
    char line[1024];
    while (fgets(line, sizeof line, script)) {
        char word[32], arg[512];
        int k;
        unsigned long long n;
        if (sscanf(line, "%31s", word) != 1) continue;
        if (!strcmp(word, "config")) {
            sscanf(line, "%*s %63s", configuration);
        } else if (!strcmp(word, "backend")) {
            sscanf(line, "%*s %511s", arg);
            config.backend = !strcmp(arg, "rtl") ? NPU_BACKEND_RTL : NPU_BACKEND_GOLDEN;
        } else if (!strcmp(word, "memory")) {
            sscanf(line, "%*s %127s", preset);
        } else if (!strcmp(word, "driver")) {
            sscanf(line, "%*s %15s", driver);
        } else if (!strcmp(word, "levels")) {
            sscanf(line, "%*s %d %d", &secure, &privileged);
        } else if (sscanf(line, "region %d %511s", &k, arg) == 2 && k >= 0 && k < MAX_REGIONS) {
            snprintf(regions[k].path, sizeof regions[k].path, "%s", arg);
            regions[k].host = load(arg, &regions[k].size);
            if (!regions[k].host) {
                fprintf(stderr, "harness: cannot read %s\n", arg);
                return 2;
            }
        } else if (sscanf(line, "payload %511s", arg) == 1) {
            /* After init: the next invocations' payload, in place of the last. */
            if (p.device && payload) {
                api(&p, npu_unmap(p.device, PAYLOAD_ADDRESS), "npu_unmap");
                free(payload);
                p.n_mappings--;
            }
            payload = load(arg, &payload_size);
            if (!payload) {
                fprintf(stderr, "harness: cannot read %s\n", arg);
                return 2;
            }
            if (p.device) {
                mappings[p.n_mappings++] =
                    (struct mapping){payload, PAYLOAD_ADDRESS, payload_size};
                api(&p, npu_map(p.device, PAYLOAD_ADDRESS, payload, payload_size), "npu_map");
            }
        } else if (sscanf(line, "budget %llu", &n) == 1) {
            p.irq_budget = n;
        } else if (!strcmp(word, "init") && p.device) {
            /* Again: the driver's init on the same device. */
            fprintf(result, "init %d\n",
                    !strcmp(driver, "linux") ? linux_reset(&linux_driver, &p)
                                             : core_init(&core, &p, secure, privileged));
        } else if (!strcmp(word, "init")) {
            config.configuration = configuration;
            config.memory_preset = preset[0] ? preset : NULL;
            int code = npu_device_create(&config, &p.device);
            if (code != NPU_OK) {
                fprintf(stderr, "harness: npu_device_create: %s\n", npu_last_error());
                fprintf(result, "create %d %s\n", code, npu_last_error());
                fclose(result);
                return 3;
            }
            for (int r = 0; r < MAX_REGIONS; r++) {
                if (!regions[r].host || !regions[r].size) continue;
                mappings[p.n_mappings++] = (struct mapping){regions[r].host, region_address(r),
                                                            regions[r].size};
                api(&p, npu_map(p.device, region_address(r), regions[r].host, regions[r].size),
                    "npu_map");
            }
            if (payload) {
                mappings[p.n_mappings++] =
                    (struct mapping){payload, PAYLOAD_ADDRESS, payload_size};
                api(&p, npu_map(p.device, PAYLOAD_ADDRESS, payload, payload_size), "npu_map");
            }
            p.mappings = mappings;
            int rc;
            if (!strcmp(driver, "linux")) {
                /* The kernel runs non-secure and privileged, on an SoC that
                 * powers the NPU on non-secure (PORSL 1), as the i.MX93 does:
                 * a secure NPU refuses its accesses (TRM 4.1). */
                api(&p, npu_hard_reset(p.device, 0, 1), "npu_hard_reset");
                p.pprot = 3;
                rc = linux_reset(&linux_driver, &p);
            } else {
                rc = core_init(&core, &p, secure, privileged);
            }
            fprintf(result, "init %d\n", rc);
        } else if (!strcmp(word, "invoke")) {
            uint64_t before = 0, after = 0;
            api(&p, npu_cycle(p.device, &before), "npu_cycle");
            void *bases[MAX_REGIONS];
            int n_bases = 0;
            for (int r = 0; r < MAX_REGIONS; r++) {
                bases[r] = regions[r].host;
                if (regions[r].host) n_bases = r + 1;
            }
            int rc;
            if (!strcmp(driver, "linux")) {
                rc = linux_submit(&linux_driver, payload, (uint32_t)payload_size, bases, n_bases);
            } else {
                rc = core_invoke(&core, payload, payload_size, bases, n_bases);
            }
            api(&p, npu_cycle(p.device, &after), "npu_cycle");
            fprintf(result, "invoke %d status 0x%08x qread %u irq %d cycles %llu\n", rc,
                    p.status_at_irq, p.qread_at_irq, p.irq_at_stop,
                    (unsigned long long)(after - before));
        }
    }
    for (int r = 0; r < MAX_REGIONS; r++) {
        if (!regions[r].host) continue;
        char out[600];
        snprintf(out, sizeof out, "%.500s.out", regions[r].path);
        FILE *f = fopen(out, "wb");
        if (f) {
            fwrite(regions[r].host, 1, regions[r].size, f);
            fclose(f);
        }
    }
    fprintf(result, "api %d\n", p.api_error);
    fclose(result);
    npu_device_destroy(p.device);
    return p.api_error == NPU_OK ? 0 : 1;
}
