// AXI4 read-manager rules on the DMA's read router (verilog-out/
// read_router_u65_256.v; read_router_u65_512.v with U65_512 defined), both
// ports M0 and M1, as sampled on clock edges with ACLKEN high (AMBA AXI4,
// TRM A.3). The clients keep the router's contract (a request only while
// `may_issue`; a client's counter, so its port, held while it has a burst
// granted and not answered in full); the subordinates answer only bursts
// outstanding on their port, by RID, with RLAST anywhere; AXI_LIMITn and
// PROT held; everything else free. Asserted: AR held and stable until
// ARREADY, nothing moving at disabled edges, AR the last burst granted, one
// grant a port and cycle, beats by RID with their port's data, bursts
// granted and not answered within each counter's AXI_LIMITn, `quiet` when
// none. Burst lengths and 4 KB boundaries are the transfer walker's
// (transfer_walker_bursts.v).
`ifdef U65_512
`define N 7
`else
`define N 5
`endif
module read_router_formal (
    input wire clock,
    input wire rst_n,
    input wire [2:0] prot,
    input wire [31:0] axi_limit_0, axi_limit_1, axi_limit_2, axi_limit_3,
    input wire [`N-1:0] request,
    input wire [`N*40-1:0] address,
    input wire [`N*8-1:0] len,
    input wire [`N*2-1:0] counter,
    input wire [`N*4-1:0] cache,
    input wire [1:0] aclken, arready, rvalid, rlast,
    input wire [15:0] rid,
    input wire [255:0] rdata,
    input wire [3:0] rresp
);
    localparam N = `N;
    wire [N-1:0] grant, may_issue, beat;
    wire [N*128-1:0] data;
    wire [1:0] arvalid;
    wire [15:0] arid;
    wire [79:0] araddr;
    wire [15:0] arlen;
    wire [7:0] arcache;
    wire [5:0] arprot;
    wire quiet;

`ifdef U65_512
    read_router_u65_512 dut (
`else
    read_router_u65_256 dut (
`endif
        .clock(clock), .rst_n(rst_n), .prot(prot),
        .axi_limit_0(axi_limit_0), .axi_limit_1(axi_limit_1),
        .axi_limit_2(axi_limit_2), .axi_limit_3(axi_limit_3),
        .clients_0_request(request[0]), .clients_0_address(address[0*40 +: 40]),
        .clients_0_len(len[0*8 +: 8]), .clients_0_grant(grant[0]),
        .clients_0_counter(counter[0*2 +: 2]), .clients_0_cache(cache[0*4 +: 4]),
        .clients_0_may_issue(may_issue[0]), .clients_0_limit_stall(1'b0),
        .clients_0_beat(beat[0]), .clients_0_data(data[0*128 +: 128]),
        .clients_1_request(request[1]), .clients_1_address(address[1*40 +: 40]),
        .clients_1_len(len[1*8 +: 8]), .clients_1_grant(grant[1]),
        .clients_1_counter(counter[1*2 +: 2]), .clients_1_cache(cache[1*4 +: 4]),
        .clients_1_may_issue(may_issue[1]), .clients_1_limit_stall(1'b0),
        .clients_1_beat(beat[1]), .clients_1_data(data[1*128 +: 128]),
        .clients_2_request(request[2]), .clients_2_address(address[2*40 +: 40]),
        .clients_2_len(len[2*8 +: 8]), .clients_2_grant(grant[2]),
        .clients_2_counter(counter[2*2 +: 2]), .clients_2_cache(cache[2*4 +: 4]),
        .clients_2_may_issue(may_issue[2]), .clients_2_limit_stall(1'b0),
        .clients_2_beat(beat[2]), .clients_2_data(data[2*128 +: 128]),
        .clients_3_request(request[3]), .clients_3_address(address[3*40 +: 40]),
        .clients_3_len(len[3*8 +: 8]), .clients_3_grant(grant[3]),
        .clients_3_counter(counter[3*2 +: 2]), .clients_3_cache(cache[3*4 +: 4]),
        .clients_3_may_issue(may_issue[3]), .clients_3_limit_stall(1'b0),
        .clients_3_beat(beat[3]), .clients_3_data(data[3*128 +: 128]),
        .clients_4_request(request[4]), .clients_4_address(address[4*40 +: 40]),
        .clients_4_len(len[4*8 +: 8]), .clients_4_grant(grant[4]),
        .clients_4_counter(counter[4*2 +: 2]), .clients_4_cache(cache[4*4 +: 4]),
        .clients_4_may_issue(may_issue[4]), .clients_4_limit_stall(1'b0),
        .clients_4_beat(beat[4]), .clients_4_data(data[4*128 +: 128]),
`ifdef U65_512
        .clients_5_request(request[5]), .clients_5_address(address[5*40 +: 40]),
        .clients_5_len(len[5*8 +: 8]), .clients_5_grant(grant[5]),
        .clients_5_counter(counter[5*2 +: 2]), .clients_5_cache(cache[5*4 +: 4]),
        .clients_5_may_issue(may_issue[5]), .clients_5_limit_stall(1'b0),
        .clients_5_beat(beat[5]), .clients_5_data(data[5*128 +: 128]),
        .clients_6_request(request[6]), .clients_6_address(address[6*40 +: 40]),
        .clients_6_len(len[6*8 +: 8]), .clients_6_grant(grant[6]),
        .clients_6_counter(counter[6*2 +: 2]), .clients_6_cache(cache[6*4 +: 4]),
        .clients_6_may_issue(may_issue[6]), .clients_6_limit_stall(1'b0),
        .clients_6_beat(beat[6]), .clients_6_data(data[6*128 +: 128]),
`endif
        .m0_aclken(aclken[0]), .m0_arvalid(arvalid[0]), .m0_arid(arid[7:0]),
        .m0_araddr(araddr[39:0]), .m0_arlen(arlen[7:0]), .m0_arcache(arcache[3:0]),
        .m0_arprot(arprot[2:0]), .m0_arready(arready[0]), .m0_rvalid(rvalid[0]),
        .m0_rid(rid[7:0]), .m0_rdata(rdata[127:0]), .m0_rresp(rresp[1:0]),
        .m0_rlast(rlast[0]), .m0_events(),
        .m1_aclken(aclken[1]), .m1_arvalid(arvalid[1]), .m1_arid(arid[15:8]),
        .m1_araddr(araddr[79:40]), .m1_arlen(arlen[15:8]), .m1_arcache(arcache[7:4]),
        .m1_arprot(arprot[5:3]), .m1_arready(arready[1]), .m1_rvalid(rvalid[1]),
        .m1_rid(rid[15:8]), .m1_rdata(rdata[255:128]), .m1_rresp(rresp[3:2]),
        .m1_rlast(rlast[1]), .m1_events(),
        .quiet(quiet), .error(), .error_channel(), .error_interface()
    );

    // The clients' ARIDs (TRM tables A-10/A-11), in the router's priority order.
`ifdef U65_512
    wire [N*8-1:0] ids = {8'h58, 8'ha8, 8'h8c, 8'h54, 8'h38, 8'h04, 8'h00};
`else
    wire [N*8-1:0] ids = {8'h40, 8'h3c, 8'h20, 8'h04, 8'h00};
`endif

    reg init = 1'b1;
    always @(posedge clock) init <= 1'b0;

    // TRM 4.2.14-17: AXI_LIMITn.max_outstanding_read_m1 is bits 21:16.
    wire [31:0] limits [0:3];
    assign limits[0] = axi_limit_0;
    assign limits[1] = axi_limit_1;
    assign limits[2] = axi_limit_2;
    assign limits[3] = axi_limit_3;

    // Per client: bursts granted and not answered in full (RLAST).
    wire [6:0] open [0:N-1];
    wire [N-1:0] on_m1;
    genvar i;
    generate
        for (i = 0; i < N; i = i + 1) begin : client
            assign on_m1[i] = counter[i*2 + 1];
            read_client_rules rules (
                .clock(clock), .rst_n(rst_n), .init(init), .id(ids[i*8 +: 8]),
                .request(request[i]), .counter(counter[i*2 +: 2]), .grant(grant[i]),
                .may_issue(may_issue[i]), .beat(beat[i]), .data(data[i*128 +: 128]),
                .aclken(aclken), .rvalid(rvalid), .rlast(rlast), .rid(rid), .rdata(rdata),
                .open(open[i])
            );
        end
    endgenerate

    // Bursts granted and not answered per counter, against its limit. A
    // counter is on one port: at most one grant (one_grant) and one last
    // beat (one RID) a cycle. The router's own counts (connected by the
    // job's script after flatten) are asserted equal, so k-induction closes.
    wire [6:0] router_outstanding_0, router_outstanding_1, router_outstanding_2,
               router_outstanding_3;
    wire [6:0] router_outstanding [0:3];
    assign router_outstanding[0] = router_outstanding_0;
    assign router_outstanding[1] = router_outstanding_1;
    assign router_outstanding[2] = router_outstanding_2;
    assign router_outstanding[3] = router_outstanding_3;
    reg [6:0] per_counter [0:3];
    reg [3:0] issued, completed;
    integer c, j;
    always @(*) begin
        issued = 4'd0;
        completed = 4'd0;
        for (j = 0; j < N; j = j + 1) begin
            if (grant[j]) issued[counter[j*2 +: 2]] = 1'b1;
            if (beat[j] && rlast[on_m1[j]]) completed[counter[j*2 +: 2]] = 1'b1;
        end
    end
    always @(posedge clock)
        for (c = 0; c < 4; c = c + 1)
            per_counter[c] <= !rst_n ? 7'd0 : per_counter[c] + issued[c] - completed[c];

    // The subordinates: reset first; AXI_LIMITn and PROT held; a beat only
    // for a client with a burst outstanding on that port.
    integer k;
    reg [1:0] answerable;
    always @(*) begin
        answerable = 2'b00;
        for (k = 0; k < N; k = k + 1)
            // Its counter's count too, so that an induction state whose
            // counts disagree cannot wrap one.
            if (open[k] != 7'd0 && per_counter[counter[k*2 +: 2]] != 7'd0 &&
                rid[on_m1[k]*8 +: 8] == ids[k*8 +: 8])
                answerable[on_m1[k]] = 1'b1;
    end
    always @(posedge clock) begin
        if (init) assume (!rst_n);
        else assume (prot == $past(prot) && axi_limit_0 == $past(axi_limit_0) &&
                     axi_limit_1 == $past(axi_limit_1) && axi_limit_2 == $past(axi_limit_2) &&
                     axi_limit_3 == $past(axi_limit_3));
        assume (!rvalid[0] || answerable[0]);
        assume (!rvalid[1] || answerable[1]);
    end

    // What each port's AR channel presents: the last burst granted on it.
    reg [59:0] granted [0:1];
    always @(posedge clock) begin
        for (k = 0; k < N; k = k + 1)
            if (grant[k])
                granted[on_m1[k]] <= {ids[k*8 +: 8], address[k*40 +: 40], len[k*8 +: 8], cache[k*4 +: 4]};
    end

    genvar p;
    generate
        for (p = 0; p < 2; p = p + 1) begin : port
            read_port_rules #(.N(N)) rules (
                .clock(clock), .rst_n(rst_n), .init(init), .aclken(aclken[p]),
                .grant(grant & (on_m1 ^ {N{p == 0}})), .arvalid(arvalid[p]), .arready(arready[p]),
                .ar({arid[p*8 +: 8], araddr[p*40 +: 40], arlen[p*8 +: 8], arcache[p*4 +: 4]}),
                .arprot(arprot[p*3 +: 3]), .prot(prot), .granted(granted[p])
            );
        end
    endgenerate

    always @(posedge clock) begin
        if (rst_n) begin
            counted_0: assert (per_counter[0] == router_outstanding[0]);
            counted_1: assert (per_counter[1] == router_outstanding[1]);
            counted_2: assert (per_counter[2] == router_outstanding[2]);
            counted_3: assert (per_counter[3] == router_outstanding[3]);
            outstanding_limit_0: assert (per_counter[0] <= limits[0][21:16] + 7'd1);
            outstanding_limit_1: assert (per_counter[1] <= limits[1][21:16] + 7'd1);
            outstanding_limit_2: assert (per_counter[2] <= limits[2][21:16] + 7'd1);
            outstanding_limit_3: assert (per_counter[3] <= limits[3][21:16] + 7'd1);
            quiet_when_none: assert (quiet == (per_counter[0] == 0 && per_counter[1] == 0 &&
                                               per_counter[2] == 0 && per_counter[3] == 0));
        end
        // Reachable (the `cover` job): both ports nine bursts deep, so the
        // assumptions leave long traces and the proof is not vacuous.
        nine_deep: cover (rst_n && per_counter[0] == 9 && per_counter[2] == 9);
    end
endmodule

// One client's side: its contract assumed, its beats asserted.
module read_client_rules (
    input wire clock, rst_n, init,
    input wire [7:0] id,
    input wire request,
    input wire [1:0] counter,
    input wire grant, may_issue, beat,
    input wire [127:0] data,
    input wire [1:0] aclken, rvalid, rlast,
    input wire [15:0] rid,
    input wire [255:0] rdata,
    output reg [6:0] open
);
    wire p = counter[1];
    always @(posedge clock)
        if (!rst_n) open <= 7'd0;
        else open <= open + grant - (beat && rlast[p]);

    always @(posedge clock) begin
        if (!init) begin
            assume (!request || may_issue);
            if ($past(rst_n) && rst_n && open != 7'd0)
                assume (counter == $past(counter));
        end
        if (rst_n) begin
            // A grant takes a request; beats go by RID on the client's
            // port, with that port's data.
            grant_requested: assert (!grant || request);
            beat_by_id: assert (beat == (rvalid[p] && aclken[p] && rid[p*8 +: 8] == id));
            beat_data: assert (!beat || data == rdata[p*128 +: 128]);
        end
    end
endmodule

// One port's AR channel.
module read_port_rules #(parameter N = 5) (
    input wire clock, rst_n, init, aclken,
    input wire [N-1:0] grant,
    input wire arvalid, arready,
    input wire [59:0] ar,
    input wire [2:0] arprot, prot,
    input wire [59:0] granted
);
    always @(posedge clock) begin
        if (rst_n) begin
            // At most one grant a cycle, only at an enabled edge that frees
            // the AR register; AR presents the last burst granted.
            one_grant: assert ((grant & (grant - 1)) == 0);
            grant_when_free: assert (grant == 0 || (aclken && (!arvalid || arready)));
            ar_granted: assert (!arvalid || (ar == granted && arprot == prot));
        end
        if (!init && $past(rst_n) && rst_n) begin
            // ARVALID held, payload stable, until an enabled edge with
            // ARREADY; nothing changes after a disabled edge.
            if ($past(arvalid) && !($past(aclken) && $past(arready))) begin
                ar_valid_held: assert (arvalid);
                ar_stable: assert (ar == $past(ar) && arprot == $past(arprot));
            end
            if (!$past(aclken)) begin
                ar_valid_kept: assert (arvalid == $past(arvalid));
                ar_kept: assert (ar == $past(ar) && arprot == $past(arprot));
            end
        end
    end
endmodule
