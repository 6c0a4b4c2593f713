/* Runs a job folder's command stream (JOBS.md: cmd.bin and regionK.bin, as
 * npu-sim writes them for Vela's networks) on one NPU device through the C
 * API, the way Arm's core driver programs the NPU, and prints an output's
 * bytes and the cycles it took.
 *
 *   run_job JOB_DIR REGION OFFSET SIZE [golden|rtl] [u65-256|u65-512]
 *
 * Built by `make capi` (build/capi/run_job). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu.h"
#include "npu_regs.h"

#define PPROT 1 /* secure, privileged */

static void *load(const char *dir, const char *name, size_t *size) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    void *bytes = calloc(1, *size + 16);
    if (bytes && fread(bytes, 1, *size, f) != *size) *size = 0;
    fclose(f);
    return bytes;
}

static int check(int code, const char *what) {
    if (code != NPU_OK) fprintf(stderr, "%s: %s\n", what, npu_last_error());
    return code;
}

static uint32_t rd(npu_device *d, uint32_t offset) {
    uint32_t value = 0;
    int32_t slverr = 0;
    check(npu_apb_read(d, offset, PPROT, &value, &slverr), "npu_apb_read");
    return value;
}

static void wr(npu_device *d, uint32_t offset, uint32_t value) {
    check(npu_apb_write(d, offset, value, PPROT, NULL), "npu_apb_write");
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: run_job JOB_DIR REGION OFFSET SIZE [golden|rtl] [config]\n");
        return 2;
    }
    const char *dir = argv[1];
    int out_region = atoi(argv[2]);
    if (out_region < 0 || out_region > 7) {
        fprintf(stderr, "REGION %s is not 0-7\n", argv[2]);
        return 2;
    }
    size_t out_offset = strtoul(argv[3], NULL, 0), out_size = strtoul(argv[4], NULL, 0);
    npu_device_config config;
    npu_device_config_init(&config);
    config.backend = argc > 5 && !strcmp(argv[5], "rtl") ? NPU_BACKEND_RTL : NPU_BACKEND_GOLDEN;
    if (argc > 6) config.configuration = argv[6];
    npu_device *npu;
    if (check(npu_device_create(&config, &npu), "npu_device_create")) return 1;

    /* The stream and each region the folder holds, mapped in place. */
    size_t size;
    uint64_t stream_address = (uint64_t)0x20 << 32;
    void *stream = load(dir, "cmd.bin", &size);
    if (!stream || check(npu_map(npu, stream_address, stream, size), "npu_map")) return 1;
    uint32_t stream_size = (uint32_t)size;
    void *regions[8] = {0};
    size_t region_sizes[8] = {0};
    for (int k = 0; k < 8; k++) {
        char name[32];
        snprintf(name, sizeof name, "region%d.bin", k);
        regions[k] = load(dir, name, &size);
        region_sizes[k] = regions[k] ? size : 0;
        if (regions[k] && size) check(npu_map(npu, (uint64_t)(0x10 + k) << 32, regions[k], size), "npu_map");
    }

    /* The core driver's soft reset and defaults, then the run. */
    wr(npu, NPU_REG_RESET, NPU_REG_RESET_PENDING_CPL_MASK);
    while (rd(npu, NPU_REG_STATUS) & NPU_REG_STATUS_RESET_STATUS_MASK) npu_run(npu, 16);
    for (uint32_t limit = NPU_REG_AXI_LIMIT0; limit <= NPU_REG_AXI_LIMIT3; limit += 4) {
        wr(npu, limit, 0x1F3F0000u);
    }
    wr(npu, NPU_REG_QBASE0, (uint32_t)stream_address);
    wr(npu, NPU_REG_QBASE1, (uint32_t)(stream_address >> 32));
    wr(npu, NPU_REG_QSIZE, stream_size);
    wr(npu, NPU_REG_QCONFIG, 2);
    for (int k = 0; k < 8; k++) {
        uint64_t base = (uint64_t)(0x10 + k) << 32;
        wr(npu, NPU_REG_BASEP0 + 8 * k, (uint32_t)base);
        wr(npu, NPU_REG_BASEP1 + 8 * k, (uint32_t)(base >> 32));
    }
    wr(npu, NPU_REG_REGIONCFG, 0x555Bu); /* regions 0, 1 on AXI1; 2-7 on AXI0 */
    uint64_t start = 0, end = 0;
    npu_cycle(npu, &start);
    wr(npu, NPU_REG_CMD, NPU_REG_CMD_TRANSITION_TO_RUNNING_STATE_MASK);
    check(npu_run_until_irq(npu, 100000000, NULL), "npu_run_until_irq");
    npu_cycle(npu, &end);
    wr(npu, NPU_REG_CMD, NPU_REG_CMD_CLEAR_IRQ_MASK);
    uint32_t status = rd(npu, NPU_REG_STATUS);
    int ok = (status & NPU_REG_STATUS_CMD_END_REACHED_MASK) &&
             !(status & (NPU_REG_STATUS_BUS_STATUS_MASK | NPU_REG_STATUS_CMD_PARSE_ERROR_MASK));
    printf("STATUS 0x%08x (%s), %llu cycles\n", status, ok ? "done" : "FAILED",
           (unsigned long long)(end - start));
    const unsigned char *out = regions[out_region];
    for (size_t i = 0; out && i < out_size && out_offset + i < region_sizes[out_region]; i++) {
        printf("%02x%s", out[out_offset + i], (i + 1) % 32 == 0 || i + 1 == out_size ? "\n" : " ");
    }
    npu_device_destroy(npu);
    return ok ? 0 : 1;
}
