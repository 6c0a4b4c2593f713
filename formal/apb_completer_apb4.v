// APB4 completer rules on apb_completer (verilog-out/apb_completer.v), as
// sampled on CLK edges with PCLKEN high (TRM A.5). The requester is assumed to
// keep APB4's rules; the register file behind the register bus is left free
// (any `registers_defined` and `registers_rdata` on any cycle), and PROT is
// held (the top latches it at a hard reset).
module apb_completer_formal (
    input wire clock,
    input wire rst_n,
    input wire pclken,
    input wire psel,
    input wire penable,
    input wire [2:0] pprot,
    input wire pwrite,
    input wire [11:0] paddr,
    input wire [31:0] pwdata,
    input wire [3:0] pstrb,
    input wire [1:0] prot,
    input wire registers_defined,
    input wire [31:0] registers_rdata
);
    wire pready, pslverr, registers_write;
    wire [31:0] prdata, registers_wdata;
    wire [11:0] registers_addr;

    apb_completer dut (
        .clock(clock), .rst_n(rst_n), .pclken(pclken), .psel(psel), .penable(penable),
        .pprot(pprot), .pwrite(pwrite), .paddr(paddr), .pwdata(pwdata), .pstrb(pstrb),
        .pready(pready), .pslverr(pslverr), .prdata(prdata), .prot(prot),
        .registers_addr(registers_addr), .registers_write(registers_write),
        .registers_wdata(registers_wdata), .registers_defined(registers_defined),
        .registers_rdata(registers_rdata)
    );

    reg init = 1'b1;
    always @(posedge clock) init <= 1'b0;

    // TRM 4.1: permitted iff PPROT[0] >= CPL and PPROT[1] <= CNS (PROT bit 0
    // is the CPL, bit 1 the CSL/CNS), written here independently of the block.
    wire permitted = (pprot[0] >= prot[0]) && (pprot[1] <= prot[1]);
    wire access = psel && penable;

    wire [52:0] payload = {pprot, pwrite, paddr, pwdata, pstrb};

    // The requester (APB4): reset first; no transfer while in reset; inputs
    // change only at a sampled edge; after a SETUP edge comes ACCESS with the
    // same payload, ACCESS holds until an edge with PREADY, then IDLE or a
    // new SETUP.
    always @(posedge clock) begin
        if (init) assume (!rst_n);
        assume (!penable || psel);
        if (!rst_n) assume (!psel);
        if (!init) begin
            assume (prot == $past(prot));
            if ($past(rst_n) && rst_n) begin
                if (!$past(pclken))
                    assume (psel == $past(psel) && penable == $past(penable) &&
                            payload == $past(payload));
                else if ($past(psel) && (!$past(penable) || !$past(pready)))
                    assume (access && payload == $past(payload));
                else
                    assume (!penable);
            end
        end
    end

    always @(posedge clock) begin
        if (rst_n) begin
            // PREADY and PSLVERR only in the access phase (PSLVERR only with PREADY).
            pready_access: assert (!pready || access);
            pslverr_access: assert (!pslverr || (pready && access));
            // A register write only on a permitted full-word write completing
            // at a sampled edge: a refused access changes no register.
            refused_write: assert (!registers_write ||
                (pclken && access && pready && pwrite && permitted && pstrb == 4'hf &&
                 registers_addr == paddr && registers_wdata == pwdata));
            // A refused read returns 0 (TRM 4.1, docs/architecture.md "Registers"): at
            // the sampled edge that completes it, and so on every cycle of
            // its access phase with PREADY high (what makes it inductive
            // over a stretch of cycles without PCLKEN).
            if (access && pready && !pwrite && !permitted)
                refused_read: assert (prdata == 32'h0);
        end
        if (!init && $past(rst_n) && rst_n) begin
            // Read data stable while PREADY is low.
            if (!$past(pready) && !pready)
                prdata_stable: assert (prdata == $past(prdata));
            // Outputs change only on sampled edges (TRM A.5).
            if (!$past(pclken))
                outputs_hold: assert (pready == $past(pready) && pslverr == $past(pslverr) &&
                                      prdata == $past(prdata));
        end
    end
endmodule
