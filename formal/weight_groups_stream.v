// Stream rules on weight_groups (verilog-out/weight_groups.v): its weight
// group input stream is assumed to keep the rules, its MAC group output stream
// must. `depthwise` is left free (any value on any cycle).
module weight_groups_formal (
    input wire clock,
    input wire rst_n,
    input wire depthwise,
    input wire weights_valid,
    input wire [148:0] weights_data,
    input wire groups_ready
);
    wire weights_ready, groups_valid, empty, ragged;
    wire [575:0] groups_data;

    weight_groups dut (
        .clock(clock), .rst_n(rst_n), .depthwise(depthwise),
        .weights_valid(weights_valid), .weights_data(weights_data), .weights_ready(weights_ready),
        .groups_valid(groups_valid), .groups_data(groups_data), .groups_ready(groups_ready),
        .empty(empty), .ragged(ragged)
    );

    reg init = 1'b1;
    always @(posedge clock) init <= 1'b0;
    always @(posedge clock) if (init) assume (!rst_n);

    stream_rules #(.W(149), .ASSERT(0)) weights_in (
        .clock(clock), .rst_n(rst_n), .valid(weights_valid), .ready(weights_ready), .data(weights_data));
    stream_rules #(.W(576), .ASSERT(1)) groups_out (
        .clock(clock), .rst_n(rst_n), .valid(groups_valid), .ready(groups_ready), .data(groups_data));
endmodule
