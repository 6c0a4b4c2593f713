// AXI_LIMITn burst rules on transfer_walker (verilog-out/transfer_walker.v),
// the one source of every DMA read burst and of the user DMA's write bursts
// (the OFM channel forms its own: ofm_channel). Inputs free but for the
// walker's contract: `start` only while not busy (every channel's
// `may_start`), with at least one byte, row and plane.
module transfer_walker_formal (
    input wire clock,
    input wire rst_n,
    input wire start,
    input wire [39:0] shape_base,
    input wire [31:0] shape_len,
    input wire [15:0] shape_rows,
    input wire [15:0] shape_planes,
    input wire [39:0] shape_row_skip,
    input wire [39:0] shape_plane_skip,
    input wire shape_three_d,
    input wire [1:0] shape_max_beats,
    input wire next_burst,
    input wire next_beat,
    input wire cancel
);
    wire valid, busy, last_burst, beat_last_of_burst, beat_last;
    wire [39:0] address;
    wire [3:0] beats_m1, burst_last_lane, beat_first_lane, beat_last_lane;
    wire [35:0] beat_line;

    transfer_walker dut (
        .clock(clock), .rst_n(rst_n), .start(start), .shape_base(shape_base),
        .shape_len(shape_len), .shape_rows(shape_rows), .shape_planes(shape_planes),
        .shape_row_skip(shape_row_skip), .shape_plane_skip(shape_plane_skip),
        .shape_three_d(shape_three_d), .shape_max_beats(shape_max_beats),
        .next_burst(next_burst), .next_beat(next_beat), .cancel(cancel),
        .valid(valid), .busy(busy), .address(address), .beats_m1(beats_m1),
        .last_burst(last_burst), .burst_last_lane(burst_last_lane),
        .beat_first_lane(beat_first_lane), .beat_last_lane(beat_last_lane),
        .beat_line(beat_line), .beat_last_of_burst(beat_last_of_burst), .beat_last(beat_last)
    );

    reg init = 1'b1;
    always @(posedge clock) init <= 1'b0;
    always @(posedge clock) begin
        if (init) assume (!rst_n);
        if (start) assume (!busy && shape_len != 0 && shape_rows != 0 && shape_planes != 0);
    end

    // The transfer's max_beats, as the wrapper saw it at `start`.
    reg [1:0] max_beats = 2'd0;
    always @(posedge clock) if (start) max_beats <= shape_max_beats;

    // TRM 4.2.14 max_beats: 0 = 64, 1 = 128, 2 = 256 bytes, reserved 3 as 0.
    wire [8:0] window = max_beats == 2'd1 ? 9'd128 : max_beats == 2'd2 ? 9'd256 : 9'd64;
    // AXI A3.4.1: an INCR burst of 16-byte beats spans from its address
    // aligned down to 16 to (AxLEN + 1) * 16 bytes on.
    wire [12:0] span = {4'd0, beats_m1, 4'd0} + 13'd16;
    wire [12:0] in_window = {4'd0, address[8:4] & (window[8:4] - 5'd1), 4'd0};
    wire [12:0] in_page = {1'b0, address[11:4], 4'd0};

    wire fits = span <= {4'd0, window};
    wire in_4kb = in_page + span <= 13'd4096;
    // One assertion per way of breaking the rule (a longer burst also
    // crosses its window; a burst across 4 KB also crosses a window).
    always @(posedge clock) begin
        if (rst_n && valid) begin
            // AxLEN + 1 <= max_beats' bytes / 16 ...
            burst_beats: assert (fits);
            // ... no burst across a 4 KB boundary (AXI A3.4.1) ...
            burst_4kb: assert (in_4kb);
            // ... nor across a max_beats boundary inside the page.
            if (fits && in_4kb) burst_window: assert (in_window + span <= {4'd0, window});
        end
        if (!init && $past(rst_n) && rst_n && $past(valid) &&
            !$past(next_burst) && !$past(next_beat) && !$past(cancel)) begin
            // A presented burst stays as it is until taken.
            presented_stable: assert (valid && address == $past(address) &&
                                      beats_m1 == $past(beats_m1));
        end
    end
endmodule
