// AXI4 write-manager rules on the DMA's write router (verilog-out/
// write_router.v, the router of both configurations), both ports M0 and M1,
// as sampled on clock edges with ACLKEN high (AMBA AXI4; TRM A.4: outputs
// held stable while ACLKEN is low).
//
// Assumed, the clients' contract (write_channel.rs and ofm_channel.rs keep
// it): a burst issued only at an enabled edge of its port, while
// `may_issue` and its AW register is free; AWVALID exactly while an issued
// burst's AW is not taken; W only for an issued burst whose last beat is not
// taken; AW and W held and stable until taken, W and `waiting` unchanged at
// disabled edges; the counter, so the port, held while the client has a
// burst unanswered, its AW or data not all taken, or is `waiting`. The
// subordinates: any BID at any time, but a client's BID on its port only
// for a burst whose AW and last beat are taken. AXI_LIMITn held.
//
// Asserted: AWVALID and WVALID held, payloads stable, until AWREADY and
// WREADY at an enabled edge, and VALID unchanged at disabled edges (a
// payload without VALID is free); each port's AW and W a client's on that
// port, with its AWID; a client's AW or W taken exactly when its port takes
// it; W in the order of the AWs, a burst's data ahead of its AW only while
// it is presented and no AW waits for data; B by BID to a
// client on that port, any other BID ignored, an error only on a matched
// response; bursts issued and not answered within each counter's AXI_LIMITn
// write count; `quiet` when none. WLAST is each client's own (its beat count
// is the write channel's); burst lengths and 4 KB boundaries are the
// transfer walker's (transfer_walker_bursts.v).
module write_router_formal (
    input wire clock,
    input wire rst_n,
    input wire [31:0] axi_limit_0, axi_limit_1, axi_limit_2, axi_limit_3,
    input wire [1:0] awvalid, wvalid, wlast, waiting, burst_issued,
    input wire [79:0] awaddr,
    input wire [15:0] awlen,
    input wire [7:0] awcache,
    input wire [255:0] wdata,
    input wire [31:0] wstrb,
    input wire [3:0] counter,
    input wire [1:0] aclken, m_awready, m_wready, m_bvalid,
    input wire [15:0] m_bid,
    input wire [3:0] m_bresp
);
    wire [1:0] awready, wready, may_issue, b_valid, client_aclken;
    wire [1:0] m_awvalid, m_wvalid, m_wlast;
    wire [15:0] m_awid, m_awlen;
    wire [79:0] m_awaddr;
    wire [7:0] m_awcache;
    wire [255:0] m_wdata;
    wire [31:0] m_wstrb;
    wire quiet, error, error_interface;
    wire [3:0] error_channel;

    write_router dut (
        .clock(clock), .rst_n(rst_n),
        .axi_limit_0(axi_limit_0), .axi_limit_1(axi_limit_1),
        .axi_limit_2(axi_limit_2), .axi_limit_3(axi_limit_3),
        .clients_0_awvalid(awvalid[0]), .clients_0_awaddr(awaddr[39:0]),
        .clients_0_awlen(awlen[7:0]), .clients_0_awcache(awcache[3:0]),
        .clients_0_awready(awready[0]), .clients_0_wvalid(wvalid[0]),
        .clients_0_wdata(wdata[127:0]), .clients_0_wstrb(wstrb[15:0]),
        .clients_0_wlast(wlast[0]), .clients_0_wready(wready[0]),
        .clients_0_waiting(waiting[0]), .clients_0_counter(counter[1:0]),
        .clients_0_aclken(client_aclken[0]), .clients_0_may_issue(may_issue[0]),
        .clients_0_burst_issued(burst_issued[0]), .clients_0_b_valid(b_valid[0]),
        .clients_0_limit_stall(1'b0),
        .clients_1_awvalid(awvalid[1]), .clients_1_awaddr(awaddr[79:40]),
        .clients_1_awlen(awlen[15:8]), .clients_1_awcache(awcache[7:4]),
        .clients_1_awready(awready[1]), .clients_1_wvalid(wvalid[1]),
        .clients_1_wdata(wdata[255:128]), .clients_1_wstrb(wstrb[31:16]),
        .clients_1_wlast(wlast[1]), .clients_1_wready(wready[1]),
        .clients_1_waiting(waiting[1]), .clients_1_counter(counter[3:2]),
        .clients_1_aclken(client_aclken[1]), .clients_1_may_issue(may_issue[1]),
        .clients_1_burst_issued(burst_issued[1]), .clients_1_b_valid(b_valid[1]),
        .clients_1_limit_stall(1'b0),
        .m0_aclken(aclken[0]), .m0_awvalid(m_awvalid[0]), .m0_awid(m_awid[7:0]),
        .m0_awaddr(m_awaddr[39:0]), .m0_awlen(m_awlen[7:0]), .m0_awcache(m_awcache[3:0]),
        .m0_awready(m_awready[0]), .m0_wvalid(m_wvalid[0]), .m0_wdata(m_wdata[127:0]),
        .m0_wstrb(m_wstrb[15:0]), .m0_wlast(m_wlast[0]), .m0_wready(m_wready[0]),
        .m0_bvalid(m_bvalid[0]), .m0_bid(m_bid[7:0]), .m0_bresp(m_bresp[1:0]), .m0_events(),
        .m1_aclken(aclken[1]), .m1_awvalid(m_awvalid[1]), .m1_awid(m_awid[15:8]),
        .m1_awaddr(m_awaddr[79:40]), .m1_awlen(m_awlen[15:8]), .m1_awcache(m_awcache[7:4]),
        .m1_awready(m_awready[1]), .m1_wvalid(m_wvalid[1]), .m1_wdata(m_wdata[255:128]),
        .m1_wstrb(m_wstrb[31:16]), .m1_wlast(m_wlast[1]), .m1_wready(m_wready[1]),
        .m1_bvalid(m_bvalid[1]), .m1_bid(m_bid[15:8]), .m1_bresp(m_bresp[3:2]), .m1_events(),
        .quiet(quiet), .error(error), .error_channel(error_channel),
        .error_interface(error_interface)
    );

    // The clients' AWIDs (TRM tables A-10/A-11): the OFM's, the user DMA's.
    wire [15:0] ids = {8'h01, 8'h00};

    reg init = 1'b1;
    always @(posedge clock) init <= 1'b0;

    // TRM 4.2.14-17: AXI_LIMITn.max_outstanding_write_m1 is bits 28:24.
    wire [31:0] limits [0:3];
    assign limits[0] = axi_limit_0;
    assign limits[1] = axi_limit_1;
    assign limits[2] = axi_limit_2;
    assign limits[3] = axi_limit_3;

    // Per client: bursts issued and not answered; whether one may be.
    wire [6:0] open [0:1];
    wire [1:0] answerable, aw_due;
    wire [6:0] w_due [0:1];
    wire [1:0] on_m1 = {counter[3], counter[1]};
    genvar i;
    generate
        for (i = 0; i < 2; i = i + 1) begin : client
            write_client_rules rules (
                .clock(clock), .rst_n(rst_n), .init(init), .id(ids[i*8 +: 8]),
                .counter(counter[i*2 +: 2]), .aclken(client_aclken[i]),
                .port_aclken(aclken[on_m1[i]]), .may_issue(may_issue[i]),
                .burst_issued(burst_issued[i]), .waiting(waiting[i]),
                .aw({awaddr[i*40 +: 40], awlen[i*8 +: 8], awcache[i*4 +: 4]}),
                .awvalid(awvalid[i]), .awready(awready[i]),
                .w({wdata[i*128 +: 128], wstrb[i*16 +: 16], wlast[i]}),
                .wvalid(wvalid[i]), .wready(wready[i]), .b_valid(b_valid[i]),
                .m_aw({m_awid[on_m1[i]*8 +: 8], m_awaddr[on_m1[i]*40 +: 40],
                       m_awlen[on_m1[i]*8 +: 8], m_awcache[on_m1[i]*4 +: 4]}),
                .m_awvalid(m_awvalid[on_m1[i]]), .m_awready(m_awready[on_m1[i]]),
                .m_w({m_wdata[on_m1[i]*128 +: 128], m_wstrb[on_m1[i]*16 +: 16],
                      m_wlast[on_m1[i]]}),
                .m_wvalid(m_wvalid[on_m1[i]]), .m_wready(m_wready[on_m1[i]]),
                .m_bvalid(m_bvalid[on_m1[i]]), .m_bid(m_bid[on_m1[i]*8 +: 8]),
                .open(open[i]), .answerable(answerable[i]), .aw_due(aw_due[i]),
                .w_due(w_due[i])
            );
        end
    endgenerate

    // Bursts issued and not answered per counter, against its limit. Both
    // clients may issue on one counter in a cycle; a counter is on one port,
    // whose one response a cycle answers it. The router's own counts
    // (connected by the job's script after flatten) are asserted equal, so
    // k-induction closes.
    wire [6:0] router_outstanding_0, router_outstanding_1, router_outstanding_2,
               router_outstanding_3;
    wire [6:0] router_outstanding [0:3];
    assign router_outstanding[0] = router_outstanding_0;
    assign router_outstanding[1] = router_outstanding_1;
    assign router_outstanding[2] = router_outstanding_2;
    assign router_outstanding[3] = router_outstanding_3;
    reg [6:0] per_counter [0:3];
    reg [3:0] issued_0, issued_1, completed;
    integer c, j;
    always @(*) begin
        issued_0 = 4'd0;
        issued_1 = 4'd0;
        completed = 4'd0;
        if (burst_issued[0]) issued_0[counter[1:0]] = 1'b1;
        if (burst_issued[1]) issued_1[counter[3:2]] = 1'b1;
        for (j = 0; j < 2; j = j + 1)
            if (b_valid[j]) completed[counter[j*2 +: 2]] = 1'b1;
    end
    always @(posedge clock)
        for (c = 0; c < 4; c = c + 1)
            per_counter[c] <= !rst_n ? 7'd0
                : per_counter[c] + issued_0[c] + issued_1[c] - completed[c];

    // The subordinates: reset first; AXI_LIMITn held; a client's BID only on
    // its port for a burst whose AW and last beat it has taken (and so while
    // the client's counter has one unanswered).
    integer k;
    reg [1:0] unanswerable;
    always @(*) begin
        unanswerable = 2'b00;
        for (k = 0; k < 2; k = k + 1)
            if ((!answerable[k] || per_counter[counter[k*2 +: 2]] == 7'd0) &&
                m_bid[on_m1[k]*8 +: 8] == ids[k*8 +: 8])
                unanswerable[on_m1[k]] = 1'b1;
    end
    always @(posedge clock) begin
        if (init) assume (!rst_n);
        else assume (axi_limit_0 == $past(axi_limit_0) && axi_limit_1 == $past(axi_limit_1) &&
                     axi_limit_2 == $past(axi_limit_2) && axi_limit_3 == $past(axi_limit_3));
        assume (!m_bvalid[0] || !unanswerable[0]);
        assume (!m_bvalid[1] || !unanswerable[1]);
    end

    // Each port's own state (connected by the job's script after flatten):
    // its order queue (count, read pointer, the four client indices), the
    // W-ahead flag, the held AW and its client.
    wire [2:0] port_count_0, port_count_1, port_read_pointer_0, port_read_pointer_1;
    wire port_cell_0_0, port_cell_0_1, port_cell_0_2, port_cell_0_3;
    wire port_cell_1_0, port_cell_1_1, port_cell_1_2, port_cell_1_3;
    wire port_w_ahead_0, port_w_ahead_1, port_held_0, port_held_1;
    wire port_held_client_0, port_held_client_1;
    wire [2:0] port_count [0:1];
    wire [2:0] port_read_pointer [0:1];
    wire [3:0] port_cells [0:1];
    wire port_w_ahead [0:1];
    wire port_held [0:1];
    wire port_held_client [0:1];
    assign port_w_ahead[0] = port_w_ahead_0;
    assign port_w_ahead[1] = port_w_ahead_1;
    assign port_held[0] = port_held_0;
    assign port_held[1] = port_held_1;
    assign port_held_client[0] = port_held_client_0;
    assign port_held_client[1] = port_held_client_1;
    assign port_count[0] = port_count_0;
    assign port_count[1] = port_count_1;
    assign port_read_pointer[0] = port_read_pointer_0;
    assign port_read_pointer[1] = port_read_pointer_1;
    assign port_cells[0] = {port_cell_0_3, port_cell_0_2, port_cell_0_1, port_cell_0_0};
    assign port_cells[1] = {port_cell_1_3, port_cell_1_2, port_cell_1_1, port_cell_1_0};

    genvar p;
    generate
        for (p = 0; p < 2; p = p + 1) begin : port
            write_port_rules rules (
                .clock(clock), .rst_n(rst_n), .init(init), .aclken(aclken[p]),
                .ids(ids), .active(on_m1 ^ {2{p == 0}}), .client_aw({
                    awaddr[79:40], awlen[15:8], awcache[7:4],
                    awaddr[39:0], awlen[7:0], awcache[3:0]}),
                .client_awvalid(awvalid),
                .client_w({wdata[255:128], wstrb[31:16], wlast[1],
                           wdata[127:0], wstrb[15:0], wlast[0]}),
                .client_wvalid(wvalid),
                .awvalid(m_awvalid[p]), .awready(m_awready[p]),
                .aw({m_awid[p*8 +: 8], m_awaddr[p*40 +: 40], m_awlen[p*8 +: 8],
                     m_awcache[p*4 +: 4]}),
                .wvalid(m_wvalid[p]), .wready(m_wready[p]),
                .w({m_wdata[p*128 +: 128], m_wstrb[p*16 +: 16], m_wlast[p]}),
                .client_wready(wready & (on_m1 ^ {2{p == 0}}))
            );
        end
    endgenerate

    // Each port's state against the clients' counts, the invariants that let
    // the induction close (checked here, not in a submodule, so that they
    // read the connected wires themselves): the order queue holds, for each
    // client on the port, one entry per burst whose AW is taken and last
    // beat is not, and none of a client on the other port; a burst whose
    // data all went ahead of its AW is the held AW, with the queue empty and
    // W-ahead set; a held AW is presented.
    wire [1:0] queue_kept, w_ahead_kept, held_kept, w_ordered, order_kept;
    generate
        for (p = 0; p < 2; p = p + 1) begin : state
            wire [1:0] active = on_m1 ^ {2{p == 0}};
            integer q;
            wire [6:0] queued_0 = !active[0] ? 7'd0 : w_due[0] - (w_due[0] != 7'd0 && aw_due[0]);
            wire [6:0] queued_1 = !active[1] ? 7'd0 : w_due[1] - (w_due[1] != 7'd0 && aw_due[1]);
            wire [1:0] ahead = active & aw_due & {w_due[1] == 7'd0, w_due[0] == 7'd0};
            wire held_client = port_held_client[p];
            // The AW order W must follow (AXI4): the clients of the AWs taken
            // whose last beat is not, oldest first, and a burst whose data
            // all went ahead of its AW (only while no AW waits for data).
            wire aw_accepted = aclken[p] && m_awvalid[p] && m_awready[p];
            wire aw_client = m_awid[p*8 +: 8] == ids[15:8];
            wire w_taken = aclken[p] && m_wvalid[p] && m_wready[p];
            wire w_client = wready[1] && active[1];
            wire w_last = w_taken && m_wlast[p];
            reg [3:0] order;
            reg [2:0] ordered;
            reg ahead_q, ahead_client;
            wire pop = w_last && ordered != 3'd0;
            wire pairs = aw_accepted && (ahead_q || (w_last && ordered == 3'd0));
            wire push = aw_accepted && !pairs;
            wire [2:0] kept = ordered - pop;
            wire [3:0] shifted = pop ? order >> 1 : order;
            always @(posedge clock)
                if (!rst_n) begin
                    order <= 4'd0;
                    ordered <= 3'd0;
                    ahead_q <= 1'b0;
                    ahead_client <= 1'b0;
                end else begin
                    if (push) order <= (shifted & ~(4'd1 << kept)) | ({3'd0, aw_client} << kept);
                    else order <= shifted;
                    ordered <= kept + push;
                    if (w_last && ordered == 3'd0 && !aw_accepted) begin
                        ahead_q <= 1'b1;
                        ahead_client <= w_client;
                    end else if (aw_accepted) ahead_q <= 1'b0;
                end
            assign w_ordered[p] = !w_taken || (ordered != 3'd0 ? w_client == order[0]
                : !ahead_q && m_awvalid[p] && aw_client == w_client);
            reg same;
            always @(*) begin
                same = ordered == port_count[p] && ahead_q == port_w_ahead[p] &&
                       (!ahead_q || ahead_client == port_held_client[p]);
                for (q = 0; q < 4; q = q + 1)
                    if (q < ordered && order[q] != port_cells[p][(port_read_pointer[p][1:0] + q) % 4])
                        same = 1'b0;
            end
            assign order_kept[p] = same;
            // Client 1's entries (order_kept holds the router's queue to these).
            reg [2:0] ones;
            always @(*) begin
                ones = 3'd0;
                for (q = 0; q < 4; q = q + 1)
                    if (q < ordered && order[q]) ones = ones + 3'd1;
            end
            assign queue_kept[p] = ordered <= 3'd4 && ordered - ones == queued_0 &&
                                   ones == queued_1;
            assign w_ahead_kept[p] = port_w_ahead[p] == (ahead != 2'b00) &&
                (ahead == 2'b00 ||
                 (port_held[p] && port_count[p] == 3'd0 && ahead == (2'b01 << held_client)));
            assign held_kept[p] = !port_held[p] ||
                                  (active[held_client] && aw_due[held_client] && m_awvalid[p]);
        end
    endgenerate

    always @(posedge clock) begin
        if (rst_n) begin
            counted_0: assert (per_counter[0] == router_outstanding[0]);
            counted_1: assert (per_counter[1] == router_outstanding[1]);
            counted_2: assert (per_counter[2] == router_outstanding[2]);
            counted_3: assert (per_counter[3] == router_outstanding[3]);
            outstanding_limit_0: assert (per_counter[0] <= limits[0][28:24] + 7'd1);
            outstanding_limit_1: assert (per_counter[1] <= limits[1][28:24] + 7'd1);
            outstanding_limit_2: assert (per_counter[2] <= limits[2][28:24] + 7'd1);
            outstanding_limit_3: assert (per_counter[3] <= limits[3][28:24] + 7'd1);
            quiet_when_none: assert (quiet == (per_counter[0] == 0 && per_counter[1] == 0 &&
                                               per_counter[2] == 0 && per_counter[3] == 0));
            // W in the order of the AWs, or ahead of the presented AW when
            // no AW waits for data (aw_stable then keeps that AW presented,
            // so the next AW taken is that data's).
            w_in_order_m0: assert (w_ordered[0]);
            w_in_order_m1: assert (w_ordered[1]);
            order_m0: assert (order_kept[0]);
            order_m1: assert (order_kept[1]);
            queue_m0: assert (queue_kept[0]);
            queue_m1: assert (queue_kept[1]);
            w_ahead_m0: assert (w_ahead_kept[0]);
            w_ahead_m1: assert (w_ahead_kept[1]);
            held_m0: assert (held_kept[0]);
            held_m1: assert (held_kept[1]);
            // An error is a matched response's.
            error_matched: assert (error == ((b_valid[0] && m_bresp[on_m1[0]*2 + 1]) ||
                                             (b_valid[1] && m_bresp[on_m1[1]*2 + 1])));
        end
        // Reachable (the `cover` job): four bursts out on counter 0 (M0)
        // while counter 3 (M1) holds two, so the proof is not vacuous.
        deep: cover (rst_n && per_counter[0] == 4 && per_counter[3] == 2);
    end
endmodule

// One client's side: its contract assumed, its handshakes asserted.
module write_client_rules (
    input wire clock, rst_n, init,
    input wire [7:0] id,
    input wire [1:0] counter,
    input wire aclken, port_aclken, may_issue, burst_issued, waiting,
    input wire [51:0] aw,
    input wire awvalid, awready,
    input wire [144:0] w,
    input wire wvalid, wready, b_valid,
    input wire [59:0] m_aw,
    input wire m_awvalid, m_awready,
    input wire [144:0] m_w,
    input wire m_wvalid, m_wready, m_bvalid,
    input wire [7:0] m_bid,
    output reg [6:0] open,
    output wire answerable,
    output reg aw_due,
    output reg [6:0] w_due
);
    wire aw_taken = aclken && awvalid && awready;
    wire w_last_taken = aclken && wvalid && wready && w[0];
    // Bursts issued whose AW, and whose last W beat, are not yet taken; and
    // unanswered bursts whose AW, and whose last beat, are taken.
    reg [6:0] aw_done, w_done;
    always @(posedge clock)
        if (!rst_n) begin
            open <= 7'd0;
            aw_due <= 1'b0;
            w_due <= 7'd0;
            aw_done <= 7'd0;
            w_done <= 7'd0;
        end else begin
            open <= open + burst_issued - b_valid;
            aw_due <= burst_issued || (aw_due && !aw_taken);
            w_due <= w_due + burst_issued - w_last_taken;
            aw_done <= aw_done + aw_taken - b_valid;
            w_done <= w_done + w_last_taken - b_valid;
        end
    // AXI4: a response follows its burst's AW and last W beat.
    assign answerable = open != 7'd0 && aw_done != 7'd0 && w_done != 7'd0;

    always @(posedge clock) begin
        if (!init) begin
            assume (!burst_issued || (port_aclken && may_issue && (!aw_due || aw_taken)));
            assume (awvalid == aw_due);
            assume (!wvalid || w_due != 7'd0);
            if ($past(rst_n) && rst_n) begin
                if (open != 7'd0 || aw_due || w_due != 7'd0 || waiting)
                    assume (counter == $past(counter));
                if ($past(awvalid) && !$past(aw_taken)) assume (aw == $past(aw));
                if ($past(wvalid) && !($past(aclken) && $past(wready)))
                    assume (wvalid && w == $past(w));
                if (!$past(aclken))
                    assume (wvalid == $past(wvalid) && w == $past(w) &&
                            waiting == $past(waiting));
            end
        end
        if (rst_n) begin
            client_aclken: assert (aclken == port_aclken);
            // A client's AW is taken exactly when its port takes it; its W
            // beat only when its port takes that beat; B by BID.
            aw_by_port: assert (aw_taken == (port_aclken && m_awvalid && m_awready &&
                                             m_aw == {id, aw}));
            w_by_port: assert (!(aclken && wvalid && wready) ||
                               (m_wvalid && m_wready && m_w == w));
            b_by_id: assert (b_valid == (m_bvalid && port_aclken && m_bid == id));
        end
    end
endmodule

// One port's AW and W channels.
module write_port_rules (
    input wire clock, rst_n, init, aclken,
    input wire [15:0] ids,
    input wire [1:0] active,
    input wire [103:0] client_aw,
    input wire [1:0] client_awvalid,
    input wire [289:0] client_w,
    input wire [1:0] client_wvalid,
    input wire awvalid, awready,
    input wire [59:0] aw,
    input wire wvalid, wready,
    input wire [144:0] w,
    input wire [1:0] client_wready
);
    wire [1:0] aw_is, w_is;
    assign aw_is[0] = active[0] && client_awvalid[0] && aw == {ids[7:0], client_aw[51:0]};
    assign aw_is[1] = active[1] && client_awvalid[1] && aw == {ids[15:8], client_aw[103:52]};
    assign w_is[0] = active[0] && client_wvalid[0] && w == client_w[144:0];
    assign w_is[1] = active[1] && client_wvalid[1] && w == client_w[289:145];
    always @(posedge clock) begin
        if (rst_n) begin
            // AW and W are an active client's; a W beat goes to one client.
            aw_from_client: assert (!awvalid || aw_is != 2'b00);
            w_from_client: assert (!wvalid || w_is != 2'b00);
            one_w_taken: assert (client_wready != 2'b11 || !(wvalid && wready && aclken));
            w_taken_by_client: assert (!(wvalid && wready && aclken) || (client_wready & w_is) != 2'b00);
        end
        if (!init && $past(rst_n) && rst_n) begin
            // VALID held, payload stable, until an enabled edge with READY;
            // VALID does not rise at a disabled edge (a payload without
            // VALID is free).
            if ($past(awvalid) && !($past(aclken) && $past(awready))) begin
                aw_valid_held: assert (awvalid);
                aw_stable: assert (aw == $past(aw));
            end
            if ($past(wvalid) && !($past(aclken) && $past(wready))) begin
                w_valid_held: assert (wvalid);
                w_stable: assert (w == $past(w));
            end
            if (!$past(aclken)) begin
                aw_valid_kept: assert (awvalid == $past(awvalid));
                w_valid_kept: assert (wvalid == $past(wvalid));
            end
        end
    end
endmodule

