// Stream rules on scale_records (verilog-out/scale_records.v): its byte
// input stream is assumed to keep the rules, its record output stream must.
module scale_records_formal (
    input wire clock,
    input wire rst_n,
    input wire bytes_valid,
    input wire [135:0] bytes_data,
    input wire records_ready
);
    wire bytes_ready, records_valid;
    wire [77:0] records_data;

    scale_records dut (
        .clock(clock), .rst_n(rst_n),
        .bytes_valid(bytes_valid), .bytes_data(bytes_data), .bytes_ready(bytes_ready),
        .records_valid(records_valid), .records_data(records_data), .records_ready(records_ready)
    );

    // Reset in the first cycle; afterwards reset may come at any time.
    reg init = 1'b1;
    always @(posedge clock) init <= 1'b0;
    always @(posedge clock) if (init) assume (!rst_n);

    // LaneBeat's contract (hw/src/stream.rs): lanes first_lane..=last_lane hold
    // data. A beat with first_lane > last_lane wraps the byte count (the
    // block needs the rule: without this assumption the level wraps and an
    // offered record is withdrawn, found at depth 4).
    always @(posedge clock) if (bytes_valid) assume (bytes_data[131:128] <= bytes_data[135:132]);

    stream_rules #(.W(136), .ASSERT(0)) bytes_in (
        .clock(clock), .rst_n(rst_n), .valid(bytes_valid), .ready(bytes_ready), .data(bytes_data));
    stream_rules #(.W(78), .ASSERT(1)) records_out (
        .clock(clock), .rst_n(rst_n), .valid(records_valid), .ready(records_ready), .data(records_data));
endmodule
