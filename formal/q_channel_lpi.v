// Q-channel device rules (AMBA LPI, IHI 0068; TRM 3.3.4.2, 3.3.4.3) on
// q_channel (verilog-out/q_channel.v), the completer of the NPU's clock and
// power Q-channels. The controller is assumed to keep the LPI's rules; QREQn
// is asynchronous to CLK and is modelled as changing at CLK edges (the block
// synchronises it first). `allow` and `active` are free.
module q_channel_formal (
    input wire clock,
    input wire rst_n,
    input wire active,
    input wire allow,
    input wire qreq_n
);
    wire qaccept_n, qdeny, qactive, stopped;

    q_channel dut (
        .clock(clock), .rst_n(rst_n), .active(active), .allow(allow),
        .port_qreq_n(qreq_n), .port_qaccept_n(qaccept_n), .port_qdeny(qdeny),
        .port_qactive(qactive), .stopped(stopped)
    );

    reg init = 1'b1;
    always @(posedge clock) init <= 1'b0;

    // The controller: reset first, in Q_RUN (QREQn high; the block does not
    // offer a reset into Q_STOPPED); QREQn falls only in Q_RUN (QACCEPTn
    // high, QDENY low) and rises only once the request is answered
    // (QACCEPTn low: Q_EXIT, or QDENY high: Q_CONTINUE).
    always @(posedge clock) begin
        if (init) assume (!rst_n);
        if (!rst_n) assume (qreq_n);
        if (!init) begin
            if ($past(qreq_n) && !qreq_n)
                assume ($past(qaccept_n) && !$past(qdeny));
            if (!$past(qreq_n) && qreq_n)
                assume (!$past(qaccept_n) || $past(qdeny));
        end
    end

    // Cycles the device has let a request (QREQn low in Q_RUN) or a release
    // (QREQn high while accepted or denied) go unanswered.
    reg [2:0] request_wait, release_wait;
    always @(posedge clock) begin
        if (!rst_n) begin
            request_wait <= 3'd0;
            release_wait <= 3'd0;
        end else begin
            request_wait <= (!qreq_n && qaccept_n && !qdeny) ? request_wait + 3'd1 : 3'd0;
            release_wait <= (qreq_n && (!qaccept_n || qdeny)) ? release_wait + 3'd1 : 3'd0;
        end
    end

    always @(posedge clock) begin
        if (rst_n) begin
            // Never accepted and denied at once.
            exclusive: assert (!(!qaccept_n && qdeny));
            stopped_is_accepted: assert (stopped == !qaccept_n);
            // QACTIVE has no handshake: it is the NPU's activity.
            qactive_follows: assert (qactive == active);
            // Answered within the synchroniser's two cycles and the state's one.
            request_answered: assert (request_wait <= 3'd3);
            release_answered: assert (release_wait <= 3'd3);
        end
        if (!init && $past(rst_n) && rst_n) begin
            // QACCEPTn falls only on a request (Q_REQUEST -> Q_STOPPED), when allowed.
            if ($past(qaccept_n) && !qaccept_n)
                accept_on_request: assert (!$past(qreq_n) && !qreq_n && !$past(qdeny));
            if ($past(qaccept_n) && !qaccept_n)
                accept_allowed: assert ($past(allow));
            // QDENY rises only on a request (Q_REQUEST -> Q_DENIED), when not allowed.
            if (!$past(qdeny) && qdeny)
                deny_on_request: assert (!$past(qreq_n) && !qreq_n && $past(qaccept_n));
            if (!$past(qdeny) && qdeny)
                deny_refused: assert (!$past(allow));
            // Both return only on the release (Q_EXIT and Q_CONTINUE -> Q_RUN).
            if (!$past(qaccept_n) && qaccept_n)
                exit_on_release: assert ($past(qreq_n) && qreq_n && !qdeny);
            if ($past(qdeny) && !qdeny)
                continue_on_release: assert ($past(qreq_n) && qreq_n && qaccept_n);
        end
    end
endmodule
