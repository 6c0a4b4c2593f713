// The valid/ready stream bundle's rules (hw/src/stream.rs) as one reusable
// property set: once valid is high it stays high, with the same payload,
// until a cycle with ready high takes the beat.
//
// ASSERT=1 checks a block's output stream (assert); ASSERT=0 constrains an
// input stream that the environment drives (assume). Reset (rst_n low) ends
// any beat on offer. Immediate assertions with $past only (no SVA sequences).
module stream_rules #(parameter W = 1, parameter ASSERT = 1) (
    input wire clock,
    input wire rst_n,
    input wire valid,
    input wire ready,
    input wire [W-1:0] data
);
    reg past_ok = 1'b0;
    always @(posedge clock) past_ok <= 1'b1;

    always @(posedge clock) begin
        if (past_ok && $past(rst_n) && rst_n && $past(valid) && !$past(ready)) begin
            if (ASSERT) begin
                valid_held: assert (valid);
                data_stable: assert (data == $past(data));
            end else begin
                assume (valid);
                assume (data == $past(data));
            end
        end
    end
endmodule
