//! The last stage of the output unit (TRM 3.3.7), all lanes in one block:
//! the OFM zero point, then one clamp that is the clip range, the
//! ACTIVATION_MIN/MAX bounds and the OFM type's saturation together
//! ([`super::BeatControl`]'s `low`/`high`, computed once per operation).

use super::{BeatControl, LANES};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Finisher {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Lane i's scaled value (34-bit two's complement) in bits 34i+33..34i.
    pub scaled: Signal<In, Bits<{ LANES * 34 }>>,
    pub control: Signal<In, BeatControl>,
    /// Loads the output register.
    pub load: Signal<In, Bit>,
    /// Lane i's result (two's complement, in the OFM type's range) in bits
    /// 32i+31..32i; 0 for a lane off in `lanes`.
    pub results: Signal<Out, Bits<{ LANES * 32 }>>,
    pub lanes: Signal<Out, Bits<LANES>>,
    /// 2^34: flips the sign of a 35-bit value, for signed comparisons.
    sign_35: Constant<Bits<35>>,
    result: ResetReg<Bits<{ LANES * 32 }>>,
    lanes_out: ResetReg<Bits<LANES>>,
    lanes_in: Signal<Local, Bits<LANES>>,
    lane: Signal<Local, Bits<34>>,
    v: Signal<Local, Bits<35>>,
    lane_results: Signal<Local, Bits<{ LANES * 32 }>>,
}

impl Default for Finisher {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            scaled: Default::default(),
            control: Default::default(),
            load: Default::default(),
            results: Default::default(),
            lanes: Default::default(),
            sign_35: Constant::new((1u64 << 34).into()),
            result: Default::default(),
            lanes_out: Default::default(),
            lanes_in: Default::default(),
            lane: Default::default(),
            v: Default::default(),
            lane_results: Default::default(),
        }
    }
}

impl Logic for Finisher {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, result, lanes_out);
        self.result.rst_n.next = self.rst_n.val();
        self.lanes_out.rst_n.next = self.rst_n.val();
        self.lane_results.next = 0.into();
        self.lanes_in.next = self.control.val().lanes;
        for i in 0..LANES {
            self.lane.next = self.scaled.val().get_bits::<34>(i * 34);
            self.v.next = bit_cast::<35, 34>(self.lane.val());
            if self.lane.val().get_bit(33) {
                self.v.next = self.v.val() | self.sign_35.val();
            }
            self.v.next = self.v.val() + self.control.val().zero_point;
            if (self.v.val() ^ self.sign_35.val()) < (self.control.val().low ^ self.sign_35.val()) {
                self.v.next = self.control.val().low;
            }
            if (self.v.val() ^ self.sign_35.val()) > (self.control.val().high ^ self.sign_35.val())
            {
                self.v.next = self.control.val().high;
            }
            if !self.lanes_in.val().get_bit(i) {
                self.v.next = 0.into();
            }
            self.lane_results.next = self.lane_results.val()
                | (bit_cast::<{ LANES * 32 }, 32>(self.v.val().get_bits::<32>(0))
                    << (i * 32).to_bits::<8>());
        }
        if self.load.val() {
            self.result.d.next = self.lane_results.val();
            self.lanes_out.d.next = self.control.val().lanes;
        }
        self.results.next = self.result.q.val();
        self.lanes.next = self.lanes_out.q.val();
    }
}
