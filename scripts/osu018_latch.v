// yosys techmap for scripts/timing_lib.py: the clock gate's latch (yosys's
// $_DLATCH_N_, open while its enable is low) as the OSU 0.18 um library's
// LATCH (open while CLK is high) behind an inverter; dfflibmap maps only
// flip-flops.
module \$_DLATCH_N_ (input E, input D, output Q);
    wire open;
    INVX1 invert (.A(E), .Y(open));
    LATCH latch (.CLK(open), .D(D), .Q(Q));
endmodule

module \$_DLATCH_P_ (input E, input D, output Q);
    LATCH latch (.CLK(E), .D(D), .Q(Q));
endmodule
