// The timing yardstick (make timing): a registered 32 x 32 signed multiply.
module yardstick(input CLK, input signed [31:0] a, input signed [31:0] b,
                 output reg signed [63:0] p);
  reg signed [31:0] ra, rb;
  always @(posedge CLK) begin ra <= a; rb <= b; p <= ra * rb; end
endmodule
