//! What the layout kernels refuse when the model is loaded, and the
//! run-time errors of parameters computed while the network runs.

use super::fb;
use crate::tflite::host::{Element, HostOperator, OpDesc, Operand};
use std::collections::BTreeMap;
use Element::{F32, I32, I64, I8};

/// Tensor `index`: constant when `values` are given (as `element`).
fn tensor(index: i32, shape: &[usize], element: Element, values: Option<&[i64]>) -> Operand {
    let constant = values.map(|v| {
        let mut bytes = vec![0; v.len() * element.size()];
        element.put_ints(v.iter().copied(), &mut bytes);
        bytes
    });
    Operand {
        index,
        name: format!("t{index}"),
        shape: shape.to_vec(),
        element,
        scales: vec![],
        zero_points: vec![],
        quantized_dimension: 0,
        constant,
        variable: false,
    }
}

fn operator(
    name: &str,
    inputs: Vec<Operand>,
    outputs: Vec<Operand>,
    options: Option<fb::BuiltinOptions>,
) -> anyhow::Result<HostOperator> {
    HostOperator::new(OpDesc {
        index: 0,
        name: name.into(),
        version: 1,
        inputs: inputs.into_iter().map(Some).collect(),
        outputs,
        intermediates: vec![],
        options,
    })
}

/// Runs `op` with the given bytes of its tensors.
fn run(op: &HostOperator, tensors: &[(i32, Vec<u8>)]) -> anyhow::Result<Vec<u8>> {
    let mut values: BTreeMap<i32, Vec<u8>> = tensors.iter().cloned().collect();
    op.run(&mut values)?;
    Ok(values[&op.outputs[0]].clone())
}

fn ints(element: Element, v: &[i64]) -> Vec<u8> {
    let mut bytes = vec![0; v.len() * element.size()];
    element.put_ints(v.iter().copied(), &mut bytes);
    bytes
}

fn error(r: anyhow::Result<impl std::fmt::Debug>) -> String {
    format!("{:#}", r.expect_err("refused"))
}

#[test]
fn gather_checks_run_time_indices() {
    let op = operator(
        "GATHER",
        vec![tensor(0, &[3, 2], I8, None), tensor(1, &[2], I32, None)],
        vec![tensor(2, &[2, 2], I8, None)],
        None,
    )
    .unwrap();
    let data = (0, vec![1, 2, 3, 4, 5, 6]);
    let got = run(&op, &[data.clone(), (1, ints(I32, &[2, 0]))]).unwrap();
    assert_eq!(got, [5, 6, 1, 2]);
    let e = error(run(&op, &[data, (1, ints(I32, &[0, 3]))]));
    assert!(e.contains("index 3 is outside axis 0 of length 3"), "{e}");
}

#[test]
fn gather_nd_checks_only_the_flat_position() {
    let op = operator(
        "GATHER_ND",
        vec![tensor(0, &[2, 3], I8, None), tensor(1, &[1, 2], I32, None)],
        vec![tensor(2, &[1], I8, None)],
        None,
    )
    .unwrap();
    let data = (0, vec![1, 2, 3, 4, 5, 6]);
    // [0, 4] is past its own dimension but inside the input: element 4.
    assert_eq!(
        run(&op, &[data.clone(), (1, ints(I32, &[0, 4]))]).unwrap(),
        [5]
    );
    let e = error(run(&op, &[data, (1, ints(I32, &[1, 3]))]));
    assert!(e.contains("reaches outside"), "{e}");
}

#[test]
fn slice_checks_run_time_begin_and_size() {
    let op = operator(
        "SLICE",
        vec![
            tensor(0, &[4], F32, None),
            tensor(1, &[1], I64, None),
            tensor(2, &[1], I64, None),
        ],
        vec![tensor(3, &[2], F32, None)],
        None,
    )
    .unwrap();
    let data = (
        0,
        [1f32, 2., 3., 4.]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
    );
    let cut = run(
        &op,
        &[data.clone(), (1, ints(I64, &[2])), (2, ints(I64, &[-1]))],
    )
    .unwrap();
    assert_eq!(
        cut,
        [3f32, 4.]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>()
    );
    let e = error(run(
        &op,
        &[data, (1, ints(I64, &[3])), (2, ints(I64, &[2]))],
    ));
    assert!(e.contains("do not cut [2] from [4]"), "{e}");
}

#[test]
fn reverse_takes_only_contiguous_axes() {
    let make = |axes: Option<&[i64]>| {
        operator(
            "REVERSE_V2",
            vec![tensor(0, &[2, 2, 2], I8, None), tensor(1, &[2], I32, axes)],
            vec![tensor(2, &[2, 2, 2], I8, None)],
            None,
        )
    };
    assert!(error(make(Some(&[0, 2]))).contains("not one contiguous run"));
    let op = make(None).unwrap();
    let data = (0, (0..8).collect());
    assert_eq!(
        run(&op, &[data.clone(), (1, ints(I32, &[2, 1]))]).unwrap(),
        [3, 2, 1, 0, 7, 6, 5, 4]
    );
    assert!(error(run(&op, &[data, (1, ints(I32, &[1, 1]))])).contains("contiguous"));
}

#[test]
fn strided_slice_refuses_what_tflite_micro_leaves_unwritten() {
    let make = |stride: i64| {
        let options = fb::StridedSliceOptions {
            shrink_axis_mask: 1,
            ..Default::default()
        };
        operator(
            "STRIDED_SLICE",
            vec![
                tensor(0, &[3, 2], I32, None),
                tensor(1, &[2], I32, Some(&[1, 0])),
                tensor(2, &[2], I32, Some(&[2, 2])),
                tensor(3, &[2], I32, Some(&[stride, 1])),
            ],
            vec![tensor(4, &[2], I32, None)],
            Some(fb::BuiltinOptions::StridedSliceOptions(Box::new(options))),
        )
    };
    assert!(make(1).is_ok());
    assert!(error(make(-1)).contains("selects nothing"));
}

#[test]
fn concatenation_does_not_requantise_int8() {
    let quantised = |index, scale: f32| Operand {
        scales: vec![scale],
        zero_points: vec![0],
        ..tensor(index, &[2], I8, None)
    };
    let make = |scale| {
        operator(
            "CONCATENATION",
            vec![quantised(0, 0.5), quantised(1, scale)],
            vec![Operand {
                shape: vec![4],
                ..quantised(2, 0.5)
            }],
            None,
        )
    };
    assert!(make(0.5).is_ok());
    assert!(error(make(0.25)).contains("does not requantise"));
}

#[test]
fn mirror_pad_stays_inside_the_input() {
    let make = |mode: i8, pad: i64| {
        let options = fb::MirrorPadOptions { mode };
        operator(
            "MIRROR_PAD",
            vec![
                tensor(0, &[3], I8, None),
                tensor(1, &[1, 2], I32, Some(&[pad, 0])),
            ],
            vec![tensor(2, &[3 + pad as usize], I8, None)],
            Some(fb::BuiltinOptions::MirrorPadOptions(Box::new(options))),
        )
    };
    // REFLECT (0) leaves out the edge, so pads at most 2 of 3; SYMMETRIC 3.
    assert!(make(0, 2).is_ok() && make(1, 3).is_ok());
    assert!(error(make(0, 3)).contains("exceed 2"));
    let op = make(0, 2).unwrap();
    assert_eq!(run(&op, &[(0, vec![1, 2, 3])]).unwrap(), [3, 2, 1, 2, 3]);
}

#[test]
fn gather_takes_only_int32_positions() {
    let op = operator(
        "GATHER",
        vec![tensor(0, &[3], F32, None), tensor(1, &[1], I64, Some(&[0]))],
        vec![tensor(2, &[1], F32, None)],
        None,
    );
    assert!(error(op).contains("takes INT32 there"));
}
