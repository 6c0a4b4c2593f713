pub use root::*;

const _: () = ::planus::check_version_compatibility("planus-1.3.0");

/// The root namespace
///
/// Generated from these locations:
/// * File `model/src/tflite/schema.fbs`
#[no_implicit_prelude]
#[allow(clippy::needless_lifetimes)]
mod root {
    /// The namespace `tflite`
    ///
    /// Generated from these locations:
    /// * File `model/src/tflite/schema.fbs`
    pub mod tflite {
        /// The enum `TensorType` in the namespace `tflite`
        ///
        /// Generated from these locations:
        /// * Enum `TensorType` in the file `model/src/tflite/schema.fbs:9`
        #[derive(
            Copy,
            Clone,
            Debug,
            PartialEq,
            Eq,
            PartialOrd,
            Ord,
            Hash,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        #[repr(i8)]
        pub enum TensorType {
            /// The variant `FLOAT32` in the enum `TensorType`
            Float32 = 0,

            /// The variant `FLOAT16` in the enum `TensorType`
            Float16 = 1,

            /// The variant `INT32` in the enum `TensorType`
            Int32 = 2,

            /// The variant `UINT8` in the enum `TensorType`
            Uint8 = 3,

            /// The variant `INT64` in the enum `TensorType`
            Int64 = 4,

            /// The variant `STRING` in the enum `TensorType`
            String = 5,

            /// The variant `BOOL` in the enum `TensorType`
            Bool = 6,

            /// The variant `INT16` in the enum `TensorType`
            Int16 = 7,

            /// The variant `COMPLEX64` in the enum `TensorType`
            Complex64 = 8,

            /// The variant `INT8` in the enum `TensorType`
            Int8 = 9,

            /// The variant `FLOAT64` in the enum `TensorType`
            Float64 = 10,

            /// The variant `COMPLEX128` in the enum `TensorType`
            Complex128 = 11,

            /// The variant `UINT64` in the enum `TensorType`
            Uint64 = 12,

            /// The variant `RESOURCE` in the enum `TensorType`
            Resource = 13,

            /// The variant `VARIANT` in the enum `TensorType`
            Variant = 14,

            /// The variant `UINT32` in the enum `TensorType`
            Uint32 = 15,

            /// The variant `UINT16` in the enum `TensorType`
            Uint16 = 16,

            /// The variant `INT4` in the enum `TensorType`
            Int4 = 17,

            /// The variant `BFLOAT16` in the enum `TensorType`
            Bfloat16 = 18,

            /// The variant `INT2` in the enum `TensorType`
            Int2 = 19,

            /// The variant `UINT4` in the enum `TensorType`
            Uint4 = 20,

            /// The variant `FLOAT8_E4M3FN` in the enum `TensorType`
            Float8E4m3fn = 21,

            /// The variant `FLOAT8_E5M2` in the enum `TensorType`
            Float8E5m2 = 22,
        }

        impl TensorType {
            /// Array containing all valid variants of TensorType
            pub const ENUM_VALUES: [Self; 23] = [
                Self::Float32,
                Self::Float16,
                Self::Int32,
                Self::Uint8,
                Self::Int64,
                Self::String,
                Self::Bool,
                Self::Int16,
                Self::Complex64,
                Self::Int8,
                Self::Float64,
                Self::Complex128,
                Self::Uint64,
                Self::Resource,
                Self::Variant,
                Self::Uint32,
                Self::Uint16,
                Self::Int4,
                Self::Bfloat16,
                Self::Int2,
                Self::Uint4,
                Self::Float8E4m3fn,
                Self::Float8E5m2,
            ];
        }

        impl ::core::convert::TryFrom<i8> for TensorType {
            type Error = ::planus::errors::UnknownEnumTagKind;
            #[inline]
            fn try_from(
                value: i8,
            ) -> ::core::result::Result<Self, ::planus::errors::UnknownEnumTagKind> {
                #[allow(clippy::match_single_binding)]
                match value {
                    0 => ::core::result::Result::Ok(TensorType::Float32),
                    1 => ::core::result::Result::Ok(TensorType::Float16),
                    2 => ::core::result::Result::Ok(TensorType::Int32),
                    3 => ::core::result::Result::Ok(TensorType::Uint8),
                    4 => ::core::result::Result::Ok(TensorType::Int64),
                    5 => ::core::result::Result::Ok(TensorType::String),
                    6 => ::core::result::Result::Ok(TensorType::Bool),
                    7 => ::core::result::Result::Ok(TensorType::Int16),
                    8 => ::core::result::Result::Ok(TensorType::Complex64),
                    9 => ::core::result::Result::Ok(TensorType::Int8),
                    10 => ::core::result::Result::Ok(TensorType::Float64),
                    11 => ::core::result::Result::Ok(TensorType::Complex128),
                    12 => ::core::result::Result::Ok(TensorType::Uint64),
                    13 => ::core::result::Result::Ok(TensorType::Resource),
                    14 => ::core::result::Result::Ok(TensorType::Variant),
                    15 => ::core::result::Result::Ok(TensorType::Uint32),
                    16 => ::core::result::Result::Ok(TensorType::Uint16),
                    17 => ::core::result::Result::Ok(TensorType::Int4),
                    18 => ::core::result::Result::Ok(TensorType::Bfloat16),
                    19 => ::core::result::Result::Ok(TensorType::Int2),
                    20 => ::core::result::Result::Ok(TensorType::Uint4),
                    21 => ::core::result::Result::Ok(TensorType::Float8E4m3fn),
                    22 => ::core::result::Result::Ok(TensorType::Float8E5m2),

                    _ => ::core::result::Result::Err(::planus::errors::UnknownEnumTagKind {
                        tag: value as i128,
                    }),
                }
            }
        }

        impl ::core::convert::From<TensorType> for i8 {
            #[inline]
            fn from(value: TensorType) -> Self {
                value as i8
            }
        }

        /// # Safety
        /// The Planus compiler correctly calculates `ALIGNMENT` and `SIZE`.
        unsafe impl ::planus::Primitive for TensorType {
            const ALIGNMENT: usize = 1;
            const SIZE: usize = 1;
        }

        impl ::planus::WriteAsPrimitive<TensorType> for TensorType {
            #[inline]
            fn write<const N: usize>(&self, cursor: ::planus::Cursor<'_, N>, buffer_position: u32) {
                (*self as i8).write(cursor, buffer_position);
            }
        }

        impl ::planus::WriteAs<TensorType> for TensorType {
            type Prepared = Self;

            #[inline]
            fn prepare(&self, _builder: &mut ::planus::Builder) -> TensorType {
                *self
            }
        }

        impl ::planus::WriteAsDefault<TensorType, TensorType> for TensorType {
            type Prepared = Self;

            #[inline]
            fn prepare(
                &self,
                _builder: &mut ::planus::Builder,
                default: &TensorType,
            ) -> ::core::option::Option<TensorType> {
                if self == default {
                    ::core::option::Option::None
                } else {
                    ::core::option::Option::Some(*self)
                }
            }
        }

        impl ::planus::WriteAsOptional<TensorType> for TensorType {
            type Prepared = Self;

            #[inline]
            fn prepare(
                &self,
                _builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<TensorType> {
                ::core::option::Option::Some(*self)
            }
        }

        impl<'buf> ::planus::TableRead<'buf> for TensorType {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'buf>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                let n: i8 = ::planus::TableRead::from_buffer(buffer, offset)?;
                ::core::result::Result::Ok(::core::convert::TryInto::try_into(n)?)
            }
        }

        impl<'buf> ::planus::VectorReadInner<'buf> for TensorType {
            type Error = ::planus::errors::UnknownEnumTag;
            const STRIDE: usize = 1;
            #[inline]
            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'buf>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::UnknownEnumTag> {
                let value = unsafe { *buffer.buffer.get_unchecked(offset) as i8 };
                let value: ::core::result::Result<Self, _> =
                    ::core::convert::TryInto::try_into(value);
                value.map_err(|error_kind| {
                    error_kind.with_error_location(
                        "TensorType",
                        "VectorRead::from_buffer",
                        buffer.offset_from_start,
                    )
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<TensorType> for TensorType {
            const STRIDE: usize = 1;

            type Value = Self;

            #[inline]
            fn prepare(&self, _builder: &mut ::planus::Builder) -> Self {
                *self
            }

            #[inline]
            unsafe fn write_values(
                values: &[Self],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 1];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - i as u32,
                    );
                }
            }
        }

        /// The table `QuantizationParameters` in the namespace `tflite`
        ///
        /// Generated from these locations:
        /// * Table `QuantizationParameters` in the file `model/src/tflite/schema.fbs:35`
        #[derive(Clone, Debug, PartialEq, PartialOrd, ::serde::Serialize, ::serde::Deserialize)]
        pub struct QuantizationParameters {
            /// The field `min` in the table `QuantizationParameters`
            pub min: ::core::option::Option<::planus::alloc::vec::Vec<f32>>,
            /// The field `max` in the table `QuantizationParameters`
            pub max: ::core::option::Option<::planus::alloc::vec::Vec<f32>>,
            /// The field `scale` in the table `QuantizationParameters`
            pub scale: ::core::option::Option<::planus::alloc::vec::Vec<f32>>,
            /// The field `zero_point` in the table `QuantizationParameters`
            pub zero_point: ::core::option::Option<::planus::alloc::vec::Vec<i64>>,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for QuantizationParameters {
            fn default() -> Self {
                Self {
                    min: ::core::default::Default::default(),
                    max: ::core::default::Default::default(),
                    scale: ::core::default::Default::default(),
                    zero_point: ::core::default::Default::default(),
                }
            }
        }

        impl QuantizationParameters {
            /// Creates a [QuantizationParametersBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> QuantizationParametersBuilder<()> {
                QuantizationParametersBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_min: impl ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
                field_max: impl ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
                field_scale: impl ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
                field_zero_point: impl ::planus::WriteAsOptional<::planus::Offset<[i64]>>,
            ) -> ::planus::Offset<Self> {
                let prepared_min = field_min.prepare(builder);
                let prepared_max = field_max.prepare(builder);
                let prepared_scale = field_scale.prepare(builder);
                let prepared_zero_point = field_zero_point.prepare(builder);

                let mut table_writer: ::planus::table_writer::TableWriter<12> =
                    ::core::default::Default::default();
                if prepared_min.is_some() {
                    table_writer.write_entry::<::planus::Offset<[f32]>>(0);
                }
                if prepared_max.is_some() {
                    table_writer.write_entry::<::planus::Offset<[f32]>>(1);
                }
                if prepared_scale.is_some() {
                    table_writer.write_entry::<::planus::Offset<[f32]>>(2);
                }
                if prepared_zero_point.is_some() {
                    table_writer.write_entry::<::planus::Offset<[i64]>>(3);
                }

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        if let ::core::option::Option::Some(prepared_min) = prepared_min {
                            object_writer.write::<_, _, 4>(&prepared_min);
                        }
                        if let ::core::option::Option::Some(prepared_max) = prepared_max {
                            object_writer.write::<_, _, 4>(&prepared_max);
                        }
                        if let ::core::option::Option::Some(prepared_scale) = prepared_scale {
                            object_writer.write::<_, _, 4>(&prepared_scale);
                        }
                        if let ::core::option::Option::Some(prepared_zero_point) =
                            prepared_zero_point
                        {
                            object_writer.write::<_, _, 4>(&prepared_zero_point);
                        }
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<QuantizationParameters>> for QuantizationParameters {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::planus::Offset<QuantizationParameters> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<QuantizationParameters>>
            for QuantizationParameters
        {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<QuantizationParameters>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<QuantizationParameters> for QuantizationParameters {
            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::planus::Offset<QuantizationParameters> {
                QuantizationParameters::create(
                    builder,
                    &self.min,
                    &self.max,
                    &self.scale,
                    &self.zero_point,
                )
            }
        }

        /// Builder for serializing an instance of the [QuantizationParameters] type.
        ///
        /// Can be created using the [QuantizationParameters::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct QuantizationParametersBuilder<State>(State);

        impl QuantizationParametersBuilder<()> {
            /// Setter for the [`min` field](QuantizationParameters#structfield.min).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn min<T0>(self, value: T0) -> QuantizationParametersBuilder<(T0,)>
            where
                T0: ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
            {
                QuantizationParametersBuilder((value,))
            }

            /// Sets the [`min` field](QuantizationParameters#structfield.min) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn min_as_null(self) -> QuantizationParametersBuilder<((),)> {
                self.min(())
            }
        }

        impl<T0> QuantizationParametersBuilder<(T0,)> {
            /// Setter for the [`max` field](QuantizationParameters#structfield.max).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn max<T1>(self, value: T1) -> QuantizationParametersBuilder<(T0, T1)>
            where
                T1: ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
            {
                let (v0,) = self.0;
                QuantizationParametersBuilder((v0, value))
            }

            /// Sets the [`max` field](QuantizationParameters#structfield.max) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn max_as_null(self) -> QuantizationParametersBuilder<(T0, ())> {
                self.max(())
            }
        }

        impl<T0, T1> QuantizationParametersBuilder<(T0, T1)> {
            /// Setter for the [`scale` field](QuantizationParameters#structfield.scale).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn scale<T2>(self, value: T2) -> QuantizationParametersBuilder<(T0, T1, T2)>
            where
                T2: ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
            {
                let (v0, v1) = self.0;
                QuantizationParametersBuilder((v0, v1, value))
            }

            /// Sets the [`scale` field](QuantizationParameters#structfield.scale) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn scale_as_null(self) -> QuantizationParametersBuilder<(T0, T1, ())> {
                self.scale(())
            }
        }

        impl<T0, T1, T2> QuantizationParametersBuilder<(T0, T1, T2)> {
            /// Setter for the [`zero_point` field](QuantizationParameters#structfield.zero_point).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn zero_point<T3>(
                self,
                value: T3,
            ) -> QuantizationParametersBuilder<(T0, T1, T2, T3)>
            where
                T3: ::planus::WriteAsOptional<::planus::Offset<[i64]>>,
            {
                let (v0, v1, v2) = self.0;
                QuantizationParametersBuilder((v0, v1, v2, value))
            }

            /// Sets the [`zero_point` field](QuantizationParameters#structfield.zero_point) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn zero_point_as_null(self) -> QuantizationParametersBuilder<(T0, T1, T2, ())> {
                self.zero_point(())
            }
        }

        impl<T0, T1, T2, T3> QuantizationParametersBuilder<(T0, T1, T2, T3)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [QuantizationParameters].
            #[inline]
            pub fn finish(
                self,
                builder: &mut ::planus::Builder,
            ) -> ::planus::Offset<QuantizationParameters>
            where
                Self: ::planus::WriteAsOffset<QuantizationParameters>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
                T1: ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
                T2: ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
                T3: ::planus::WriteAsOptional<::planus::Offset<[i64]>>,
            > ::planus::WriteAs<::planus::Offset<QuantizationParameters>>
            for QuantizationParametersBuilder<(T0, T1, T2, T3)>
        {
            type Prepared = ::planus::Offset<QuantizationParameters>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::planus::Offset<QuantizationParameters> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
                T1: ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
                T2: ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
                T3: ::planus::WriteAsOptional<::planus::Offset<[i64]>>,
            > ::planus::WriteAsOptional<::planus::Offset<QuantizationParameters>>
            for QuantizationParametersBuilder<(T0, T1, T2, T3)>
        {
            type Prepared = ::planus::Offset<QuantizationParameters>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<QuantizationParameters>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
                T1: ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
                T2: ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
                T3: ::planus::WriteAsOptional<::planus::Offset<[i64]>>,
            > ::planus::WriteAsOffset<QuantizationParameters>
            for QuantizationParametersBuilder<(T0, T1, T2, T3)>
        {
            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::planus::Offset<QuantizationParameters> {
                let (v0, v1, v2, v3) = &self.0;
                QuantizationParameters::create(builder, v0, v1, v2, v3)
            }
        }

        /// Reference to a deserialized [QuantizationParameters].
        #[derive(Copy, Clone)]
        pub struct QuantizationParametersRef<'a>(
            #[allow(dead_code)] ::planus::table_reader::Table<'a>,
        );

        impl<'a> QuantizationParametersRef<'a> {
            /// Getter for the [`min` field](QuantizationParameters#structfield.min).
            #[inline]
            pub fn min(
                &self,
            ) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, f32>>> {
                self.0.access(0, "QuantizationParameters", "min")
            }

            /// Getter for the [`max` field](QuantizationParameters#structfield.max).
            #[inline]
            pub fn max(
                &self,
            ) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, f32>>> {
                self.0.access(1, "QuantizationParameters", "max")
            }

            /// Getter for the [`scale` field](QuantizationParameters#structfield.scale).
            #[inline]
            pub fn scale(
                &self,
            ) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, f32>>> {
                self.0.access(2, "QuantizationParameters", "scale")
            }

            /// Getter for the [`zero_point` field](QuantizationParameters#structfield.zero_point).
            #[inline]
            pub fn zero_point(
                &self,
            ) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, i64>>> {
                self.0.access(3, "QuantizationParameters", "zero_point")
            }
        }

        impl<'a> ::core::fmt::Debug for QuantizationParametersRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("QuantizationParametersRef");
                if let ::core::option::Option::Some(field_min) = self.min().transpose() {
                    f.field("min", &field_min);
                }
                if let ::core::option::Option::Some(field_max) = self.max().transpose() {
                    f.field("max", &field_max);
                }
                if let ::core::option::Option::Some(field_scale) = self.scale().transpose() {
                    f.field("scale", &field_scale);
                }
                if let ::core::option::Option::Some(field_zero_point) =
                    self.zero_point().transpose()
                {
                    f.field("zero_point", &field_zero_point);
                }
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<QuantizationParametersRef<'a>> for QuantizationParameters {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: QuantizationParametersRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    min: if let ::core::option::Option::Some(min) = value.min()? {
                        ::core::option::Option::Some(min.to_vec()?)
                    } else {
                        ::core::option::Option::None
                    },
                    max: if let ::core::option::Option::Some(max) = value.max()? {
                        ::core::option::Option::Some(max.to_vec()?)
                    } else {
                        ::core::option::Option::None
                    },
                    scale: if let ::core::option::Option::Some(scale) = value.scale()? {
                        ::core::option::Option::Some(scale.to_vec()?)
                    } else {
                        ::core::option::Option::None
                    },
                    zero_point: if let ::core::option::Option::Some(zero_point) =
                        value.zero_point()?
                    {
                        ::core::option::Option::Some(zero_point.to_vec()?)
                    } else {
                        ::core::option::Option::None
                    },
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for QuantizationParametersRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for QuantizationParametersRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location(
                        "[QuantizationParametersRef]",
                        "get",
                        buffer.offset_from_start,
                    )
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<QuantizationParameters>>
            for QuantizationParameters
        {
            type Value = ::planus::Offset<QuantizationParameters>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<QuantizationParameters>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for QuantizationParametersRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| {
                    error_kind.with_error_location("[QuantizationParametersRef]", "read_as_root", 0)
                })
            }
        }

        /// The table `Tensor` in the namespace `tflite`
        ///
        /// Generated from these locations:
        /// * Table `Tensor` in the file `model/src/tflite/schema.fbs:42`
        #[derive(Clone, Debug, PartialEq, PartialOrd, ::serde::Serialize, ::serde::Deserialize)]
        pub struct Tensor {
            /// The field `shape` in the table `Tensor`
            pub shape: ::core::option::Option<::planus::alloc::vec::Vec<i32>>,
            /// The field `type` in the table `Tensor`
            pub type_: self::TensorType,
            /// The field `buffer` in the table `Tensor`
            pub buffer: u32,
            /// The field `name` in the table `Tensor`
            pub name: ::core::option::Option<::planus::alloc::string::String>,
            /// The field `quantization` in the table `Tensor`
            pub quantization:
                ::core::option::Option<::planus::alloc::boxed::Box<self::QuantizationParameters>>,
            /// The field `is_variable` in the table `Tensor`
            pub is_variable: bool,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for Tensor {
            fn default() -> Self {
                Self {
                    shape: ::core::default::Default::default(),
                    type_: self::TensorType::Float32,
                    buffer: 0,
                    name: ::core::default::Default::default(),
                    quantization: ::core::default::Default::default(),
                    is_variable: false,
                }
            }
        }

        impl Tensor {
            /// Creates a [TensorBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> TensorBuilder<()> {
                TensorBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_shape: impl ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                field_type_: impl ::planus::WriteAsDefault<self::TensorType, self::TensorType>,
                field_buffer: impl ::planus::WriteAsDefault<u32, u32>,
                field_name: impl ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                field_quantization: impl ::planus::WriteAsOptional<
                    ::planus::Offset<self::QuantizationParameters>,
                >,
                field_is_variable: impl ::planus::WriteAsDefault<bool, bool>,
            ) -> ::planus::Offset<Self> {
                let prepared_shape = field_shape.prepare(builder);
                let prepared_type_ = field_type_.prepare(builder, &self::TensorType::Float32);
                let prepared_buffer = field_buffer.prepare(builder, &0);
                let prepared_name = field_name.prepare(builder);
                let prepared_quantization = field_quantization.prepare(builder);
                let prepared_is_variable = field_is_variable.prepare(builder, &false);

                let mut table_writer: ::planus::table_writer::TableWriter<16> =
                    ::core::default::Default::default();
                if prepared_shape.is_some() {
                    table_writer.write_entry::<::planus::Offset<[i32]>>(0);
                }
                if prepared_buffer.is_some() {
                    table_writer.write_entry::<u32>(2);
                }
                if prepared_name.is_some() {
                    table_writer.write_entry::<::planus::Offset<str>>(3);
                }
                if prepared_quantization.is_some() {
                    table_writer.write_entry::<::planus::Offset<self::QuantizationParameters>>(4);
                }
                if prepared_type_.is_some() {
                    table_writer.write_entry::<self::TensorType>(1);
                }
                if prepared_is_variable.is_some() {
                    table_writer.write_entry::<bool>(5);
                }

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        if let ::core::option::Option::Some(prepared_shape) = prepared_shape {
                            object_writer.write::<_, _, 4>(&prepared_shape);
                        }
                        if let ::core::option::Option::Some(prepared_buffer) = prepared_buffer {
                            object_writer.write::<_, _, 4>(&prepared_buffer);
                        }
                        if let ::core::option::Option::Some(prepared_name) = prepared_name {
                            object_writer.write::<_, _, 4>(&prepared_name);
                        }
                        if let ::core::option::Option::Some(prepared_quantization) =
                            prepared_quantization
                        {
                            object_writer.write::<_, _, 4>(&prepared_quantization);
                        }
                        if let ::core::option::Option::Some(prepared_type_) = prepared_type_ {
                            object_writer.write::<_, _, 1>(&prepared_type_);
                        }
                        if let ::core::option::Option::Some(prepared_is_variable) =
                            prepared_is_variable
                        {
                            object_writer.write::<_, _, 1>(&prepared_is_variable);
                        }
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<Tensor>> for Tensor {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Tensor> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<Tensor>> for Tensor {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Tensor>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<Tensor> for Tensor {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Tensor> {
                Tensor::create(
                    builder,
                    &self.shape,
                    self.type_,
                    self.buffer,
                    &self.name,
                    &self.quantization,
                    self.is_variable,
                )
            }
        }

        /// Builder for serializing an instance of the [Tensor] type.
        ///
        /// Can be created using the [Tensor::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct TensorBuilder<State>(State);

        impl TensorBuilder<()> {
            /// Setter for the [`shape` field](Tensor#structfield.shape).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn shape<T0>(self, value: T0) -> TensorBuilder<(T0,)>
            where
                T0: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
            {
                TensorBuilder((value,))
            }

            /// Sets the [`shape` field](Tensor#structfield.shape) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn shape_as_null(self) -> TensorBuilder<((),)> {
                self.shape(())
            }
        }

        impl<T0> TensorBuilder<(T0,)> {
            /// Setter for the [`type` field](Tensor#structfield.type_).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn type_<T1>(self, value: T1) -> TensorBuilder<(T0, T1)>
            where
                T1: ::planus::WriteAsDefault<self::TensorType, self::TensorType>,
            {
                let (v0,) = self.0;
                TensorBuilder((v0, value))
            }

            /// Sets the [`type` field](Tensor#structfield.type_) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn type_as_default(self) -> TensorBuilder<(T0, ::planus::DefaultValue)> {
                self.type_(::planus::DefaultValue)
            }
        }

        impl<T0, T1> TensorBuilder<(T0, T1)> {
            /// Setter for the [`buffer` field](Tensor#structfield.buffer).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn buffer<T2>(self, value: T2) -> TensorBuilder<(T0, T1, T2)>
            where
                T2: ::planus::WriteAsDefault<u32, u32>,
            {
                let (v0, v1) = self.0;
                TensorBuilder((v0, v1, value))
            }

            /// Sets the [`buffer` field](Tensor#structfield.buffer) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn buffer_as_default(self) -> TensorBuilder<(T0, T1, ::planus::DefaultValue)> {
                self.buffer(::planus::DefaultValue)
            }
        }

        impl<T0, T1, T2> TensorBuilder<(T0, T1, T2)> {
            /// Setter for the [`name` field](Tensor#structfield.name).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn name<T3>(self, value: T3) -> TensorBuilder<(T0, T1, T2, T3)>
            where
                T3: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            {
                let (v0, v1, v2) = self.0;
                TensorBuilder((v0, v1, v2, value))
            }

            /// Sets the [`name` field](Tensor#structfield.name) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn name_as_null(self) -> TensorBuilder<(T0, T1, T2, ())> {
                self.name(())
            }
        }

        impl<T0, T1, T2, T3> TensorBuilder<(T0, T1, T2, T3)> {
            /// Setter for the [`quantization` field](Tensor#structfield.quantization).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn quantization<T4>(self, value: T4) -> TensorBuilder<(T0, T1, T2, T3, T4)>
            where
                T4: ::planus::WriteAsOptional<::planus::Offset<self::QuantizationParameters>>,
            {
                let (v0, v1, v2, v3) = self.0;
                TensorBuilder((v0, v1, v2, v3, value))
            }

            /// Sets the [`quantization` field](Tensor#structfield.quantization) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn quantization_as_null(self) -> TensorBuilder<(T0, T1, T2, T3, ())> {
                self.quantization(())
            }
        }

        impl<T0, T1, T2, T3, T4> TensorBuilder<(T0, T1, T2, T3, T4)> {
            /// Setter for the [`is_variable` field](Tensor#structfield.is_variable).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn is_variable<T5>(self, value: T5) -> TensorBuilder<(T0, T1, T2, T3, T4, T5)>
            where
                T5: ::planus::WriteAsDefault<bool, bool>,
            {
                let (v0, v1, v2, v3, v4) = self.0;
                TensorBuilder((v0, v1, v2, v3, v4, value))
            }

            /// Sets the [`is_variable` field](Tensor#structfield.is_variable) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn is_variable_as_default(
                self,
            ) -> TensorBuilder<(T0, T1, T2, T3, T4, ::planus::DefaultValue)> {
                self.is_variable(::planus::DefaultValue)
            }
        }

        impl<T0, T1, T2, T3, T4, T5> TensorBuilder<(T0, T1, T2, T3, T4, T5)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Tensor].
            #[inline]
            pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Tensor>
            where
                Self: ::planus::WriteAsOffset<Tensor>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T1: ::planus::WriteAsDefault<self::TensorType, self::TensorType>,
                T2: ::planus::WriteAsDefault<u32, u32>,
                T3: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                T4: ::planus::WriteAsOptional<::planus::Offset<self::QuantizationParameters>>,
                T5: ::planus::WriteAsDefault<bool, bool>,
            > ::planus::WriteAs<::planus::Offset<Tensor>>
            for TensorBuilder<(T0, T1, T2, T3, T4, T5)>
        {
            type Prepared = ::planus::Offset<Tensor>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Tensor> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T1: ::planus::WriteAsDefault<self::TensorType, self::TensorType>,
                T2: ::planus::WriteAsDefault<u32, u32>,
                T3: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                T4: ::planus::WriteAsOptional<::planus::Offset<self::QuantizationParameters>>,
                T5: ::planus::WriteAsDefault<bool, bool>,
            > ::planus::WriteAsOptional<::planus::Offset<Tensor>>
            for TensorBuilder<(T0, T1, T2, T3, T4, T5)>
        {
            type Prepared = ::planus::Offset<Tensor>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Tensor>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T1: ::planus::WriteAsDefault<self::TensorType, self::TensorType>,
                T2: ::planus::WriteAsDefault<u32, u32>,
                T3: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                T4: ::planus::WriteAsOptional<::planus::Offset<self::QuantizationParameters>>,
                T5: ::planus::WriteAsDefault<bool, bool>,
            > ::planus::WriteAsOffset<Tensor> for TensorBuilder<(T0, T1, T2, T3, T4, T5)>
        {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Tensor> {
                let (v0, v1, v2, v3, v4, v5) = &self.0;
                Tensor::create(builder, v0, v1, v2, v3, v4, v5)
            }
        }

        /// Reference to a deserialized [Tensor].
        #[derive(Copy, Clone)]
        pub struct TensorRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

        impl<'a> TensorRef<'a> {
            /// Getter for the [`shape` field](Tensor#structfield.shape).
            #[inline]
            pub fn shape(
                &self,
            ) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, i32>>> {
                self.0.access(0, "Tensor", "shape")
            }

            /// Getter for the [`type` field](Tensor#structfield.type_).
            #[inline]
            pub fn type_(&self) -> ::planus::Result<self::TensorType> {
                ::core::result::Result::Ok(
                    self.0
                        .access(1, "Tensor", "type_")?
                        .unwrap_or(self::TensorType::Float32),
                )
            }

            /// Getter for the [`buffer` field](Tensor#structfield.buffer).
            #[inline]
            pub fn buffer(&self) -> ::planus::Result<u32> {
                ::core::result::Result::Ok(self.0.access(2, "Tensor", "buffer")?.unwrap_or(0))
            }

            /// Getter for the [`name` field](Tensor#structfield.name).
            #[inline]
            pub fn name(
                &self,
            ) -> ::planus::Result<::core::option::Option<&'a ::core::primitive::str>> {
                self.0.access(3, "Tensor", "name")
            }

            /// Getter for the [`quantization` field](Tensor#structfield.quantization).
            #[inline]
            pub fn quantization(
                &self,
            ) -> ::planus::Result<::core::option::Option<self::QuantizationParametersRef<'a>>>
            {
                self.0.access(4, "Tensor", "quantization")
            }

            /// Getter for the [`is_variable` field](Tensor#structfield.is_variable).
            #[inline]
            pub fn is_variable(&self) -> ::planus::Result<bool> {
                ::core::result::Result::Ok(
                    self.0.access(5, "Tensor", "is_variable")?.unwrap_or(false),
                )
            }
        }

        impl<'a> ::core::fmt::Debug for TensorRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("TensorRef");
                if let ::core::option::Option::Some(field_shape) = self.shape().transpose() {
                    f.field("shape", &field_shape);
                }
                f.field("type_", &self.type_());
                f.field("buffer", &self.buffer());
                if let ::core::option::Option::Some(field_name) = self.name().transpose() {
                    f.field("name", &field_name);
                }
                if let ::core::option::Option::Some(field_quantization) =
                    self.quantization().transpose()
                {
                    f.field("quantization", &field_quantization);
                }
                f.field("is_variable", &self.is_variable());
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<TensorRef<'a>> for Tensor {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: TensorRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    shape: if let ::core::option::Option::Some(shape) = value.shape()? {
                        ::core::option::Option::Some(shape.to_vec()?)
                    } else {
                        ::core::option::Option::None
                    },
                    type_: ::core::convert::TryInto::try_into(value.type_()?)?,
                    buffer: ::core::convert::TryInto::try_into(value.buffer()?)?,
                    name: value.name()?.map(::core::convert::Into::into),
                    quantization: if let ::core::option::Option::Some(quantization) =
                        value.quantization()?
                    {
                        ::core::option::Option::Some(::planus::alloc::boxed::Box::new(
                            ::core::convert::TryInto::try_into(quantization)?,
                        ))
                    } else {
                        ::core::option::Option::None
                    },
                    is_variable: ::core::convert::TryInto::try_into(value.is_variable()?)?,
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for TensorRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for TensorRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location("[TensorRef]", "get", buffer.offset_from_start)
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<Tensor>> for Tensor {
            type Value = ::planus::Offset<Tensor>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<Tensor>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for TensorRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| {
                    error_kind.with_error_location("[TensorRef]", "read_as_root", 0)
                })
            }
        }

        /// The table `Operator` in the namespace `tflite`
        ///
        /// Generated from these locations:
        /// * Table `Operator` in the file `model/src/tflite/schema.fbs:55`
        #[derive(
            Clone,
            Debug,
            PartialEq,
            PartialOrd,
            Eq,
            Ord,
            Hash,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub struct Operator {
            /// The field `opcode_index` in the table `Operator`
            pub opcode_index: u32,
            /// The field `inputs` in the table `Operator`
            pub inputs: ::core::option::Option<::planus::alloc::vec::Vec<i32>>,
            /// The field `outputs` in the table `Operator`
            pub outputs: ::core::option::Option<::planus::alloc::vec::Vec<i32>>,
            /// The field `builtin_options_type` in the table `Operator`
            pub builtin_options_type: u8,
            /// The field `builtin_options` in the table `Operator`
            pub builtin_options:
                ::core::option::Option<::planus::alloc::boxed::Box<self::GatherOptions>>,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for Operator {
            fn default() -> Self {
                Self {
                    opcode_index: 0,
                    inputs: ::core::default::Default::default(),
                    outputs: ::core::default::Default::default(),
                    builtin_options_type: 0,
                    builtin_options: ::core::default::Default::default(),
                }
            }
        }

        impl Operator {
            /// Creates a [OperatorBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> OperatorBuilder<()> {
                OperatorBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_opcode_index: impl ::planus::WriteAsDefault<u32, u32>,
                field_inputs: impl ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                field_outputs: impl ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                field_builtin_options_type: impl ::planus::WriteAsDefault<u8, u8>,
                field_builtin_options: impl ::planus::WriteAsOptional<
                    ::planus::Offset<self::GatherOptions>,
                >,
            ) -> ::planus::Offset<Self> {
                let prepared_opcode_index = field_opcode_index.prepare(builder, &0);
                let prepared_inputs = field_inputs.prepare(builder);
                let prepared_outputs = field_outputs.prepare(builder);
                let prepared_builtin_options_type = field_builtin_options_type.prepare(builder, &0);
                let prepared_builtin_options = field_builtin_options.prepare(builder);

                let mut table_writer: ::planus::table_writer::TableWriter<14> =
                    ::core::default::Default::default();
                if prepared_opcode_index.is_some() {
                    table_writer.write_entry::<u32>(0);
                }
                if prepared_inputs.is_some() {
                    table_writer.write_entry::<::planus::Offset<[i32]>>(1);
                }
                if prepared_outputs.is_some() {
                    table_writer.write_entry::<::planus::Offset<[i32]>>(2);
                }
                if prepared_builtin_options.is_some() {
                    table_writer.write_entry::<::planus::Offset<self::GatherOptions>>(4);
                }
                if prepared_builtin_options_type.is_some() {
                    table_writer.write_entry::<u8>(3);
                }

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        if let ::core::option::Option::Some(prepared_opcode_index) =
                            prepared_opcode_index
                        {
                            object_writer.write::<_, _, 4>(&prepared_opcode_index);
                        }
                        if let ::core::option::Option::Some(prepared_inputs) = prepared_inputs {
                            object_writer.write::<_, _, 4>(&prepared_inputs);
                        }
                        if let ::core::option::Option::Some(prepared_outputs) = prepared_outputs {
                            object_writer.write::<_, _, 4>(&prepared_outputs);
                        }
                        if let ::core::option::Option::Some(prepared_builtin_options) =
                            prepared_builtin_options
                        {
                            object_writer.write::<_, _, 4>(&prepared_builtin_options);
                        }
                        if let ::core::option::Option::Some(prepared_builtin_options_type) =
                            prepared_builtin_options_type
                        {
                            object_writer.write::<_, _, 1>(&prepared_builtin_options_type);
                        }
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<Operator>> for Operator {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Operator> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<Operator>> for Operator {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Operator>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<Operator> for Operator {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Operator> {
                Operator::create(
                    builder,
                    self.opcode_index,
                    &self.inputs,
                    &self.outputs,
                    self.builtin_options_type,
                    &self.builtin_options,
                )
            }
        }

        /// Builder for serializing an instance of the [Operator] type.
        ///
        /// Can be created using the [Operator::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct OperatorBuilder<State>(State);

        impl OperatorBuilder<()> {
            /// Setter for the [`opcode_index` field](Operator#structfield.opcode_index).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn opcode_index<T0>(self, value: T0) -> OperatorBuilder<(T0,)>
            where
                T0: ::planus::WriteAsDefault<u32, u32>,
            {
                OperatorBuilder((value,))
            }

            /// Sets the [`opcode_index` field](Operator#structfield.opcode_index) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn opcode_index_as_default(self) -> OperatorBuilder<(::planus::DefaultValue,)> {
                self.opcode_index(::planus::DefaultValue)
            }
        }

        impl<T0> OperatorBuilder<(T0,)> {
            /// Setter for the [`inputs` field](Operator#structfield.inputs).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn inputs<T1>(self, value: T1) -> OperatorBuilder<(T0, T1)>
            where
                T1: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
            {
                let (v0,) = self.0;
                OperatorBuilder((v0, value))
            }

            /// Sets the [`inputs` field](Operator#structfield.inputs) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn inputs_as_null(self) -> OperatorBuilder<(T0, ())> {
                self.inputs(())
            }
        }

        impl<T0, T1> OperatorBuilder<(T0, T1)> {
            /// Setter for the [`outputs` field](Operator#structfield.outputs).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn outputs<T2>(self, value: T2) -> OperatorBuilder<(T0, T1, T2)>
            where
                T2: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
            {
                let (v0, v1) = self.0;
                OperatorBuilder((v0, v1, value))
            }

            /// Sets the [`outputs` field](Operator#structfield.outputs) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn outputs_as_null(self) -> OperatorBuilder<(T0, T1, ())> {
                self.outputs(())
            }
        }

        impl<T0, T1, T2> OperatorBuilder<(T0, T1, T2)> {
            /// Setter for the [`builtin_options_type` field](Operator#structfield.builtin_options_type).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn builtin_options_type<T3>(self, value: T3) -> OperatorBuilder<(T0, T1, T2, T3)>
            where
                T3: ::planus::WriteAsDefault<u8, u8>,
            {
                let (v0, v1, v2) = self.0;
                OperatorBuilder((v0, v1, v2, value))
            }

            /// Sets the [`builtin_options_type` field](Operator#structfield.builtin_options_type) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn builtin_options_type_as_default(
                self,
            ) -> OperatorBuilder<(T0, T1, T2, ::planus::DefaultValue)> {
                self.builtin_options_type(::planus::DefaultValue)
            }
        }

        impl<T0, T1, T2, T3> OperatorBuilder<(T0, T1, T2, T3)> {
            /// Setter for the [`builtin_options` field](Operator#structfield.builtin_options).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn builtin_options<T4>(self, value: T4) -> OperatorBuilder<(T0, T1, T2, T3, T4)>
            where
                T4: ::planus::WriteAsOptional<::planus::Offset<self::GatherOptions>>,
            {
                let (v0, v1, v2, v3) = self.0;
                OperatorBuilder((v0, v1, v2, v3, value))
            }

            /// Sets the [`builtin_options` field](Operator#structfield.builtin_options) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn builtin_options_as_null(self) -> OperatorBuilder<(T0, T1, T2, T3, ())> {
                self.builtin_options(())
            }
        }

        impl<T0, T1, T2, T3, T4> OperatorBuilder<(T0, T1, T2, T3, T4)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Operator].
            #[inline]
            pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Operator>
            where
                Self: ::planus::WriteAsOffset<Operator>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u32, u32>,
                T1: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T2: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T3: ::planus::WriteAsDefault<u8, u8>,
                T4: ::planus::WriteAsOptional<::planus::Offset<self::GatherOptions>>,
            > ::planus::WriteAs<::planus::Offset<Operator>>
            for OperatorBuilder<(T0, T1, T2, T3, T4)>
        {
            type Prepared = ::planus::Offset<Operator>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Operator> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u32, u32>,
                T1: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T2: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T3: ::planus::WriteAsDefault<u8, u8>,
                T4: ::planus::WriteAsOptional<::planus::Offset<self::GatherOptions>>,
            > ::planus::WriteAsOptional<::planus::Offset<Operator>>
            for OperatorBuilder<(T0, T1, T2, T3, T4)>
        {
            type Prepared = ::planus::Offset<Operator>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Operator>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u32, u32>,
                T1: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T2: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T3: ::planus::WriteAsDefault<u8, u8>,
                T4: ::planus::WriteAsOptional<::planus::Offset<self::GatherOptions>>,
            > ::planus::WriteAsOffset<Operator> for OperatorBuilder<(T0, T1, T2, T3, T4)>
        {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Operator> {
                let (v0, v1, v2, v3, v4) = &self.0;
                Operator::create(builder, v0, v1, v2, v3, v4)
            }
        }

        /// Reference to a deserialized [Operator].
        #[derive(Copy, Clone)]
        pub struct OperatorRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

        impl<'a> OperatorRef<'a> {
            /// Getter for the [`opcode_index` field](Operator#structfield.opcode_index).
            #[inline]
            pub fn opcode_index(&self) -> ::planus::Result<u32> {
                ::core::result::Result::Ok(
                    self.0.access(0, "Operator", "opcode_index")?.unwrap_or(0),
                )
            }

            /// Getter for the [`inputs` field](Operator#structfield.inputs).
            #[inline]
            pub fn inputs(
                &self,
            ) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, i32>>> {
                self.0.access(1, "Operator", "inputs")
            }

            /// Getter for the [`outputs` field](Operator#structfield.outputs).
            #[inline]
            pub fn outputs(
                &self,
            ) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, i32>>> {
                self.0.access(2, "Operator", "outputs")
            }

            /// Getter for the [`builtin_options_type` field](Operator#structfield.builtin_options_type).
            #[inline]
            pub fn builtin_options_type(&self) -> ::planus::Result<u8> {
                ::core::result::Result::Ok(
                    self.0
                        .access(3, "Operator", "builtin_options_type")?
                        .unwrap_or(0),
                )
            }

            /// Getter for the [`builtin_options` field](Operator#structfield.builtin_options).
            #[inline]
            pub fn builtin_options(
                &self,
            ) -> ::planus::Result<::core::option::Option<self::GatherOptionsRef<'a>>> {
                self.0.access(4, "Operator", "builtin_options")
            }
        }

        impl<'a> ::core::fmt::Debug for OperatorRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("OperatorRef");
                f.field("opcode_index", &self.opcode_index());
                if let ::core::option::Option::Some(field_inputs) = self.inputs().transpose() {
                    f.field("inputs", &field_inputs);
                }
                if let ::core::option::Option::Some(field_outputs) = self.outputs().transpose() {
                    f.field("outputs", &field_outputs);
                }
                f.field("builtin_options_type", &self.builtin_options_type());
                if let ::core::option::Option::Some(field_builtin_options) =
                    self.builtin_options().transpose()
                {
                    f.field("builtin_options", &field_builtin_options);
                }
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<OperatorRef<'a>> for Operator {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: OperatorRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    opcode_index: ::core::convert::TryInto::try_into(value.opcode_index()?)?,
                    inputs: if let ::core::option::Option::Some(inputs) = value.inputs()? {
                        ::core::option::Option::Some(inputs.to_vec()?)
                    } else {
                        ::core::option::Option::None
                    },
                    outputs: if let ::core::option::Option::Some(outputs) = value.outputs()? {
                        ::core::option::Option::Some(outputs.to_vec()?)
                    } else {
                        ::core::option::Option::None
                    },
                    builtin_options_type: ::core::convert::TryInto::try_into(
                        value.builtin_options_type()?,
                    )?,
                    builtin_options: if let ::core::option::Option::Some(builtin_options) =
                        value.builtin_options()?
                    {
                        ::core::option::Option::Some(::planus::alloc::boxed::Box::new(
                            ::core::convert::TryInto::try_into(builtin_options)?,
                        ))
                    } else {
                        ::core::option::Option::None
                    },
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for OperatorRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for OperatorRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location("[OperatorRef]", "get", buffer.offset_from_start)
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<Operator>> for Operator {
            type Value = ::planus::Offset<Operator>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<Operator>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for OperatorRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| {
                    error_kind.with_error_location("[OperatorRef]", "read_as_root", 0)
                })
            }
        }

        /// The table `GatherOptions` in the namespace `tflite`
        ///
        /// Generated from these locations:
        /// * Table `GatherOptions` in the file `model/src/tflite/schema.fbs:63`
        #[derive(
            Clone,
            Debug,
            PartialEq,
            PartialOrd,
            Eq,
            Ord,
            Hash,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub struct GatherOptions {
            /// The field `axis` in the table `GatherOptions`
            pub axis: i32,
            /// The field `batch_dims` in the table `GatherOptions`
            pub batch_dims: i32,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for GatherOptions {
            fn default() -> Self {
                Self {
                    axis: 0,
                    batch_dims: 0,
                }
            }
        }

        impl GatherOptions {
            /// Creates a [GatherOptionsBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> GatherOptionsBuilder<()> {
                GatherOptionsBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_axis: impl ::planus::WriteAsDefault<i32, i32>,
                field_batch_dims: impl ::planus::WriteAsDefault<i32, i32>,
            ) -> ::planus::Offset<Self> {
                let prepared_axis = field_axis.prepare(builder, &0);
                let prepared_batch_dims = field_batch_dims.prepare(builder, &0);

                let mut table_writer: ::planus::table_writer::TableWriter<8> =
                    ::core::default::Default::default();
                if prepared_axis.is_some() {
                    table_writer.write_entry::<i32>(0);
                }
                if prepared_batch_dims.is_some() {
                    table_writer.write_entry::<i32>(1);
                }

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        if let ::core::option::Option::Some(prepared_axis) = prepared_axis {
                            object_writer.write::<_, _, 4>(&prepared_axis);
                        }
                        if let ::core::option::Option::Some(prepared_batch_dims) =
                            prepared_batch_dims
                        {
                            object_writer.write::<_, _, 4>(&prepared_batch_dims);
                        }
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<GatherOptions>> for GatherOptions {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<GatherOptions> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<GatherOptions>> for GatherOptions {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<GatherOptions>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<GatherOptions> for GatherOptions {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<GatherOptions> {
                GatherOptions::create(builder, self.axis, self.batch_dims)
            }
        }

        /// Builder for serializing an instance of the [GatherOptions] type.
        ///
        /// Can be created using the [GatherOptions::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct GatherOptionsBuilder<State>(State);

        impl GatherOptionsBuilder<()> {
            /// Setter for the [`axis` field](GatherOptions#structfield.axis).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn axis<T0>(self, value: T0) -> GatherOptionsBuilder<(T0,)>
            where
                T0: ::planus::WriteAsDefault<i32, i32>,
            {
                GatherOptionsBuilder((value,))
            }

            /// Sets the [`axis` field](GatherOptions#structfield.axis) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn axis_as_default(self) -> GatherOptionsBuilder<(::planus::DefaultValue,)> {
                self.axis(::planus::DefaultValue)
            }
        }

        impl<T0> GatherOptionsBuilder<(T0,)> {
            /// Setter for the [`batch_dims` field](GatherOptions#structfield.batch_dims).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn batch_dims<T1>(self, value: T1) -> GatherOptionsBuilder<(T0, T1)>
            where
                T1: ::planus::WriteAsDefault<i32, i32>,
            {
                let (v0,) = self.0;
                GatherOptionsBuilder((v0, value))
            }

            /// Sets the [`batch_dims` field](GatherOptions#structfield.batch_dims) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn batch_dims_as_default(
                self,
            ) -> GatherOptionsBuilder<(T0, ::planus::DefaultValue)> {
                self.batch_dims(::planus::DefaultValue)
            }
        }

        impl<T0, T1> GatherOptionsBuilder<(T0, T1)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [GatherOptions].
            #[inline]
            pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<GatherOptions>
            where
                Self: ::planus::WriteAsOffset<GatherOptions>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<T0: ::planus::WriteAsDefault<i32, i32>, T1: ::planus::WriteAsDefault<i32, i32>>
            ::planus::WriteAs<::planus::Offset<GatherOptions>> for GatherOptionsBuilder<(T0, T1)>
        {
            type Prepared = ::planus::Offset<GatherOptions>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<GatherOptions> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<T0: ::planus::WriteAsDefault<i32, i32>, T1: ::planus::WriteAsDefault<i32, i32>>
            ::planus::WriteAsOptional<::planus::Offset<GatherOptions>>
            for GatherOptionsBuilder<(T0, T1)>
        {
            type Prepared = ::planus::Offset<GatherOptions>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<GatherOptions>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<T0: ::planus::WriteAsDefault<i32, i32>, T1: ::planus::WriteAsDefault<i32, i32>>
            ::planus::WriteAsOffset<GatherOptions> for GatherOptionsBuilder<(T0, T1)>
        {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<GatherOptions> {
                let (v0, v1) = &self.0;
                GatherOptions::create(builder, v0, v1)
            }
        }

        /// Reference to a deserialized [GatherOptions].
        #[derive(Copy, Clone)]
        pub struct GatherOptionsRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

        impl<'a> GatherOptionsRef<'a> {
            /// Getter for the [`axis` field](GatherOptions#structfield.axis).
            #[inline]
            pub fn axis(&self) -> ::planus::Result<i32> {
                ::core::result::Result::Ok(self.0.access(0, "GatherOptions", "axis")?.unwrap_or(0))
            }

            /// Getter for the [`batch_dims` field](GatherOptions#structfield.batch_dims).
            #[inline]
            pub fn batch_dims(&self) -> ::planus::Result<i32> {
                ::core::result::Result::Ok(
                    self.0
                        .access(1, "GatherOptions", "batch_dims")?
                        .unwrap_or(0),
                )
            }
        }

        impl<'a> ::core::fmt::Debug for GatherOptionsRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("GatherOptionsRef");
                f.field("axis", &self.axis());
                f.field("batch_dims", &self.batch_dims());
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<GatherOptionsRef<'a>> for GatherOptions {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: GatherOptionsRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    axis: ::core::convert::TryInto::try_into(value.axis()?)?,
                    batch_dims: ::core::convert::TryInto::try_into(value.batch_dims()?)?,
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for GatherOptionsRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for GatherOptionsRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location(
                        "[GatherOptionsRef]",
                        "get",
                        buffer.offset_from_start,
                    )
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<GatherOptions>> for GatherOptions {
            type Value = ::planus::Offset<GatherOptions>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<GatherOptions>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for GatherOptionsRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| {
                    error_kind.with_error_location("[GatherOptionsRef]", "read_as_root", 0)
                })
            }
        }

        /// The table `SubGraph` in the namespace `tflite`
        ///
        /// Generated from these locations:
        /// * Table `SubGraph` in the file `model/src/tflite/schema.fbs:68`
        #[derive(Clone, Debug, PartialEq, PartialOrd, ::serde::Serialize, ::serde::Deserialize)]
        pub struct SubGraph {
            /// The field `tensors` in the table `SubGraph`
            pub tensors: ::core::option::Option<::planus::alloc::vec::Vec<self::Tensor>>,
            /// The field `inputs` in the table `SubGraph`
            pub inputs: ::core::option::Option<::planus::alloc::vec::Vec<i32>>,
            /// The field `outputs` in the table `SubGraph`
            pub outputs: ::core::option::Option<::planus::alloc::vec::Vec<i32>>,
            /// The field `operators` in the table `SubGraph`
            pub operators: ::core::option::Option<::planus::alloc::vec::Vec<self::Operator>>,
            /// The field `name` in the table `SubGraph`
            pub name: ::core::option::Option<::planus::alloc::string::String>,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for SubGraph {
            fn default() -> Self {
                Self {
                    tensors: ::core::default::Default::default(),
                    inputs: ::core::default::Default::default(),
                    outputs: ::core::default::Default::default(),
                    operators: ::core::default::Default::default(),
                    name: ::core::default::Default::default(),
                }
            }
        }

        impl SubGraph {
            /// Creates a [SubGraphBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> SubGraphBuilder<()> {
                SubGraphBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_tensors: impl ::planus::WriteAsOptional<
                    ::planus::Offset<[::planus::Offset<self::Tensor>]>,
                >,
                field_inputs: impl ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                field_outputs: impl ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                field_operators: impl ::planus::WriteAsOptional<
                    ::planus::Offset<[::planus::Offset<self::Operator>]>,
                >,
                field_name: impl ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            ) -> ::planus::Offset<Self> {
                let prepared_tensors = field_tensors.prepare(builder);
                let prepared_inputs = field_inputs.prepare(builder);
                let prepared_outputs = field_outputs.prepare(builder);
                let prepared_operators = field_operators.prepare(builder);
                let prepared_name = field_name.prepare(builder);

                let mut table_writer: ::planus::table_writer::TableWriter<14> =
                    ::core::default::Default::default();
                if prepared_tensors.is_some() {
                    table_writer
                        .write_entry::<::planus::Offset<[::planus::Offset<self::Tensor>]>>(0);
                }
                if prepared_inputs.is_some() {
                    table_writer.write_entry::<::planus::Offset<[i32]>>(1);
                }
                if prepared_outputs.is_some() {
                    table_writer.write_entry::<::planus::Offset<[i32]>>(2);
                }
                if prepared_operators.is_some() {
                    table_writer
                        .write_entry::<::planus::Offset<[::planus::Offset<self::Operator>]>>(3);
                }
                if prepared_name.is_some() {
                    table_writer.write_entry::<::planus::Offset<str>>(4);
                }

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        if let ::core::option::Option::Some(prepared_tensors) = prepared_tensors {
                            object_writer.write::<_, _, 4>(&prepared_tensors);
                        }
                        if let ::core::option::Option::Some(prepared_inputs) = prepared_inputs {
                            object_writer.write::<_, _, 4>(&prepared_inputs);
                        }
                        if let ::core::option::Option::Some(prepared_outputs) = prepared_outputs {
                            object_writer.write::<_, _, 4>(&prepared_outputs);
                        }
                        if let ::core::option::Option::Some(prepared_operators) = prepared_operators
                        {
                            object_writer.write::<_, _, 4>(&prepared_operators);
                        }
                        if let ::core::option::Option::Some(prepared_name) = prepared_name {
                            object_writer.write::<_, _, 4>(&prepared_name);
                        }
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<SubGraph>> for SubGraph {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<SubGraph> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<SubGraph>> for SubGraph {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<SubGraph>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<SubGraph> for SubGraph {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<SubGraph> {
                SubGraph::create(
                    builder,
                    &self.tensors,
                    &self.inputs,
                    &self.outputs,
                    &self.operators,
                    &self.name,
                )
            }
        }

        /// Builder for serializing an instance of the [SubGraph] type.
        ///
        /// Can be created using the [SubGraph::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct SubGraphBuilder<State>(State);

        impl SubGraphBuilder<()> {
            /// Setter for the [`tensors` field](SubGraph#structfield.tensors).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn tensors<T0>(self, value: T0) -> SubGraphBuilder<(T0,)>
            where
                T0: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Tensor>]>>,
            {
                SubGraphBuilder((value,))
            }

            /// Sets the [`tensors` field](SubGraph#structfield.tensors) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn tensors_as_null(self) -> SubGraphBuilder<((),)> {
                self.tensors(())
            }
        }

        impl<T0> SubGraphBuilder<(T0,)> {
            /// Setter for the [`inputs` field](SubGraph#structfield.inputs).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn inputs<T1>(self, value: T1) -> SubGraphBuilder<(T0, T1)>
            where
                T1: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
            {
                let (v0,) = self.0;
                SubGraphBuilder((v0, value))
            }

            /// Sets the [`inputs` field](SubGraph#structfield.inputs) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn inputs_as_null(self) -> SubGraphBuilder<(T0, ())> {
                self.inputs(())
            }
        }

        impl<T0, T1> SubGraphBuilder<(T0, T1)> {
            /// Setter for the [`outputs` field](SubGraph#structfield.outputs).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn outputs<T2>(self, value: T2) -> SubGraphBuilder<(T0, T1, T2)>
            where
                T2: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
            {
                let (v0, v1) = self.0;
                SubGraphBuilder((v0, v1, value))
            }

            /// Sets the [`outputs` field](SubGraph#structfield.outputs) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn outputs_as_null(self) -> SubGraphBuilder<(T0, T1, ())> {
                self.outputs(())
            }
        }

        impl<T0, T1, T2> SubGraphBuilder<(T0, T1, T2)> {
            /// Setter for the [`operators` field](SubGraph#structfield.operators).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn operators<T3>(self, value: T3) -> SubGraphBuilder<(T0, T1, T2, T3)>
            where
                T3: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Operator>]>>,
            {
                let (v0, v1, v2) = self.0;
                SubGraphBuilder((v0, v1, v2, value))
            }

            /// Sets the [`operators` field](SubGraph#structfield.operators) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn operators_as_null(self) -> SubGraphBuilder<(T0, T1, T2, ())> {
                self.operators(())
            }
        }

        impl<T0, T1, T2, T3> SubGraphBuilder<(T0, T1, T2, T3)> {
            /// Setter for the [`name` field](SubGraph#structfield.name).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn name<T4>(self, value: T4) -> SubGraphBuilder<(T0, T1, T2, T3, T4)>
            where
                T4: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            {
                let (v0, v1, v2, v3) = self.0;
                SubGraphBuilder((v0, v1, v2, v3, value))
            }

            /// Sets the [`name` field](SubGraph#structfield.name) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn name_as_null(self) -> SubGraphBuilder<(T0, T1, T2, T3, ())> {
                self.name(())
            }
        }

        impl<T0, T1, T2, T3, T4> SubGraphBuilder<(T0, T1, T2, T3, T4)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [SubGraph].
            #[inline]
            pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<SubGraph>
            where
                Self: ::planus::WriteAsOffset<SubGraph>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Tensor>]>>,
                T1: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T2: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T3: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Operator>]>>,
                T4: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            > ::planus::WriteAs<::planus::Offset<SubGraph>>
            for SubGraphBuilder<(T0, T1, T2, T3, T4)>
        {
            type Prepared = ::planus::Offset<SubGraph>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<SubGraph> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Tensor>]>>,
                T1: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T2: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T3: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Operator>]>>,
                T4: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            > ::planus::WriteAsOptional<::planus::Offset<SubGraph>>
            for SubGraphBuilder<(T0, T1, T2, T3, T4)>
        {
            type Prepared = ::planus::Offset<SubGraph>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<SubGraph>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Tensor>]>>,
                T1: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T2: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T3: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Operator>]>>,
                T4: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            > ::planus::WriteAsOffset<SubGraph> for SubGraphBuilder<(T0, T1, T2, T3, T4)>
        {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<SubGraph> {
                let (v0, v1, v2, v3, v4) = &self.0;
                SubGraph::create(builder, v0, v1, v2, v3, v4)
            }
        }

        /// Reference to a deserialized [SubGraph].
        #[derive(Copy, Clone)]
        pub struct SubGraphRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

        impl<'a> SubGraphRef<'a> {
            /// Getter for the [`tensors` field](SubGraph#structfield.tensors).
            #[inline]
            pub fn tensors(
                &self,
            ) -> ::planus::Result<
                ::core::option::Option<::planus::Vector<'a, ::planus::Result<self::TensorRef<'a>>>>,
            > {
                self.0.access(0, "SubGraph", "tensors")
            }

            /// Getter for the [`inputs` field](SubGraph#structfield.inputs).
            #[inline]
            pub fn inputs(
                &self,
            ) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, i32>>> {
                self.0.access(1, "SubGraph", "inputs")
            }

            /// Getter for the [`outputs` field](SubGraph#structfield.outputs).
            #[inline]
            pub fn outputs(
                &self,
            ) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, i32>>> {
                self.0.access(2, "SubGraph", "outputs")
            }

            /// Getter for the [`operators` field](SubGraph#structfield.operators).
            #[inline]
            pub fn operators(
                &self,
            ) -> ::planus::Result<
                ::core::option::Option<
                    ::planus::Vector<'a, ::planus::Result<self::OperatorRef<'a>>>,
                >,
            > {
                self.0.access(3, "SubGraph", "operators")
            }

            /// Getter for the [`name` field](SubGraph#structfield.name).
            #[inline]
            pub fn name(
                &self,
            ) -> ::planus::Result<::core::option::Option<&'a ::core::primitive::str>> {
                self.0.access(4, "SubGraph", "name")
            }
        }

        impl<'a> ::core::fmt::Debug for SubGraphRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("SubGraphRef");
                if let ::core::option::Option::Some(field_tensors) = self.tensors().transpose() {
                    f.field("tensors", &field_tensors);
                }
                if let ::core::option::Option::Some(field_inputs) = self.inputs().transpose() {
                    f.field("inputs", &field_inputs);
                }
                if let ::core::option::Option::Some(field_outputs) = self.outputs().transpose() {
                    f.field("outputs", &field_outputs);
                }
                if let ::core::option::Option::Some(field_operators) = self.operators().transpose()
                {
                    f.field("operators", &field_operators);
                }
                if let ::core::option::Option::Some(field_name) = self.name().transpose() {
                    f.field("name", &field_name);
                }
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<SubGraphRef<'a>> for SubGraph {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: SubGraphRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    tensors: if let ::core::option::Option::Some(tensors) = value.tensors()? {
                        ::core::option::Option::Some(tensors.to_vec_result()?)
                    } else {
                        ::core::option::Option::None
                    },
                    inputs: if let ::core::option::Option::Some(inputs) = value.inputs()? {
                        ::core::option::Option::Some(inputs.to_vec()?)
                    } else {
                        ::core::option::Option::None
                    },
                    outputs: if let ::core::option::Option::Some(outputs) = value.outputs()? {
                        ::core::option::Option::Some(outputs.to_vec()?)
                    } else {
                        ::core::option::Option::None
                    },
                    operators: if let ::core::option::Option::Some(operators) = value.operators()? {
                        ::core::option::Option::Some(operators.to_vec_result()?)
                    } else {
                        ::core::option::Option::None
                    },
                    name: value.name()?.map(::core::convert::Into::into),
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for SubGraphRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for SubGraphRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location("[SubGraphRef]", "get", buffer.offset_from_start)
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<SubGraph>> for SubGraph {
            type Value = ::planus::Offset<SubGraph>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<SubGraph>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for SubGraphRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| {
                    error_kind.with_error_location("[SubGraphRef]", "read_as_root", 0)
                })
            }
        }

        /// The table `OperatorCode` in the namespace `tflite`
        ///
        /// Generated from these locations:
        /// * Table `OperatorCode` in the file `model/src/tflite/schema.fbs:76`
        #[derive(
            Clone,
            Debug,
            PartialEq,
            PartialOrd,
            Eq,
            Ord,
            Hash,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub struct OperatorCode {
            /// The field `deprecated_builtin_code` in the table `OperatorCode`
            pub deprecated_builtin_code: i8,
            /// The field `custom_code` in the table `OperatorCode`
            pub custom_code: ::core::option::Option<::planus::alloc::string::String>,
            /// The field `version` in the table `OperatorCode`
            pub version: i32,
            /// The field `builtin_code` in the table `OperatorCode`
            pub builtin_code: i32,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for OperatorCode {
            fn default() -> Self {
                Self {
                    deprecated_builtin_code: 0,
                    custom_code: ::core::default::Default::default(),
                    version: 1,
                    builtin_code: 0,
                }
            }
        }

        impl OperatorCode {
            /// Creates a [OperatorCodeBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> OperatorCodeBuilder<()> {
                OperatorCodeBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_deprecated_builtin_code: impl ::planus::WriteAsDefault<i8, i8>,
                field_custom_code: impl ::planus::WriteAsOptional<
                    ::planus::Offset<::core::primitive::str>,
                >,
                field_version: impl ::planus::WriteAsDefault<i32, i32>,
                field_builtin_code: impl ::planus::WriteAsDefault<i32, i32>,
            ) -> ::planus::Offset<Self> {
                let prepared_deprecated_builtin_code =
                    field_deprecated_builtin_code.prepare(builder, &0);
                let prepared_custom_code = field_custom_code.prepare(builder);
                let prepared_version = field_version.prepare(builder, &1);
                let prepared_builtin_code = field_builtin_code.prepare(builder, &0);

                let mut table_writer: ::planus::table_writer::TableWriter<12> =
                    ::core::default::Default::default();
                if prepared_custom_code.is_some() {
                    table_writer.write_entry::<::planus::Offset<str>>(1);
                }
                if prepared_version.is_some() {
                    table_writer.write_entry::<i32>(2);
                }
                if prepared_builtin_code.is_some() {
                    table_writer.write_entry::<i32>(3);
                }
                if prepared_deprecated_builtin_code.is_some() {
                    table_writer.write_entry::<i8>(0);
                }

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        if let ::core::option::Option::Some(prepared_custom_code) =
                            prepared_custom_code
                        {
                            object_writer.write::<_, _, 4>(&prepared_custom_code);
                        }
                        if let ::core::option::Option::Some(prepared_version) = prepared_version {
                            object_writer.write::<_, _, 4>(&prepared_version);
                        }
                        if let ::core::option::Option::Some(prepared_builtin_code) =
                            prepared_builtin_code
                        {
                            object_writer.write::<_, _, 4>(&prepared_builtin_code);
                        }
                        if let ::core::option::Option::Some(prepared_deprecated_builtin_code) =
                            prepared_deprecated_builtin_code
                        {
                            object_writer.write::<_, _, 1>(&prepared_deprecated_builtin_code);
                        }
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<OperatorCode>> for OperatorCode {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<OperatorCode> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<OperatorCode>> for OperatorCode {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<OperatorCode>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<OperatorCode> for OperatorCode {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<OperatorCode> {
                OperatorCode::create(
                    builder,
                    self.deprecated_builtin_code,
                    &self.custom_code,
                    self.version,
                    self.builtin_code,
                )
            }
        }

        /// Builder for serializing an instance of the [OperatorCode] type.
        ///
        /// Can be created using the [OperatorCode::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct OperatorCodeBuilder<State>(State);

        impl OperatorCodeBuilder<()> {
            /// Setter for the [`deprecated_builtin_code` field](OperatorCode#structfield.deprecated_builtin_code).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn deprecated_builtin_code<T0>(self, value: T0) -> OperatorCodeBuilder<(T0,)>
            where
                T0: ::planus::WriteAsDefault<i8, i8>,
            {
                OperatorCodeBuilder((value,))
            }

            /// Sets the [`deprecated_builtin_code` field](OperatorCode#structfield.deprecated_builtin_code) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn deprecated_builtin_code_as_default(
                self,
            ) -> OperatorCodeBuilder<(::planus::DefaultValue,)> {
                self.deprecated_builtin_code(::planus::DefaultValue)
            }
        }

        impl<T0> OperatorCodeBuilder<(T0,)> {
            /// Setter for the [`custom_code` field](OperatorCode#structfield.custom_code).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn custom_code<T1>(self, value: T1) -> OperatorCodeBuilder<(T0, T1)>
            where
                T1: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            {
                let (v0,) = self.0;
                OperatorCodeBuilder((v0, value))
            }

            /// Sets the [`custom_code` field](OperatorCode#structfield.custom_code) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn custom_code_as_null(self) -> OperatorCodeBuilder<(T0, ())> {
                self.custom_code(())
            }
        }

        impl<T0, T1> OperatorCodeBuilder<(T0, T1)> {
            /// Setter for the [`version` field](OperatorCode#structfield.version).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn version<T2>(self, value: T2) -> OperatorCodeBuilder<(T0, T1, T2)>
            where
                T2: ::planus::WriteAsDefault<i32, i32>,
            {
                let (v0, v1) = self.0;
                OperatorCodeBuilder((v0, v1, value))
            }

            /// Sets the [`version` field](OperatorCode#structfield.version) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn version_as_default(
                self,
            ) -> OperatorCodeBuilder<(T0, T1, ::planus::DefaultValue)> {
                self.version(::planus::DefaultValue)
            }
        }

        impl<T0, T1, T2> OperatorCodeBuilder<(T0, T1, T2)> {
            /// Setter for the [`builtin_code` field](OperatorCode#structfield.builtin_code).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn builtin_code<T3>(self, value: T3) -> OperatorCodeBuilder<(T0, T1, T2, T3)>
            where
                T3: ::planus::WriteAsDefault<i32, i32>,
            {
                let (v0, v1, v2) = self.0;
                OperatorCodeBuilder((v0, v1, v2, value))
            }

            /// Sets the [`builtin_code` field](OperatorCode#structfield.builtin_code) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn builtin_code_as_default(
                self,
            ) -> OperatorCodeBuilder<(T0, T1, T2, ::planus::DefaultValue)> {
                self.builtin_code(::planus::DefaultValue)
            }
        }

        impl<T0, T1, T2, T3> OperatorCodeBuilder<(T0, T1, T2, T3)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [OperatorCode].
            #[inline]
            pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<OperatorCode>
            where
                Self: ::planus::WriteAsOffset<OperatorCode>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<i8, i8>,
                T1: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                T2: ::planus::WriteAsDefault<i32, i32>,
                T3: ::planus::WriteAsDefault<i32, i32>,
            > ::planus::WriteAs<::planus::Offset<OperatorCode>>
            for OperatorCodeBuilder<(T0, T1, T2, T3)>
        {
            type Prepared = ::planus::Offset<OperatorCode>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<OperatorCode> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<i8, i8>,
                T1: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                T2: ::planus::WriteAsDefault<i32, i32>,
                T3: ::planus::WriteAsDefault<i32, i32>,
            > ::planus::WriteAsOptional<::planus::Offset<OperatorCode>>
            for OperatorCodeBuilder<(T0, T1, T2, T3)>
        {
            type Prepared = ::planus::Offset<OperatorCode>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<OperatorCode>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<i8, i8>,
                T1: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                T2: ::planus::WriteAsDefault<i32, i32>,
                T3: ::planus::WriteAsDefault<i32, i32>,
            > ::planus::WriteAsOffset<OperatorCode> for OperatorCodeBuilder<(T0, T1, T2, T3)>
        {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<OperatorCode> {
                let (v0, v1, v2, v3) = &self.0;
                OperatorCode::create(builder, v0, v1, v2, v3)
            }
        }

        /// Reference to a deserialized [OperatorCode].
        #[derive(Copy, Clone)]
        pub struct OperatorCodeRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

        impl<'a> OperatorCodeRef<'a> {
            /// Getter for the [`deprecated_builtin_code` field](OperatorCode#structfield.deprecated_builtin_code).
            #[inline]
            pub fn deprecated_builtin_code(&self) -> ::planus::Result<i8> {
                ::core::result::Result::Ok(
                    self.0
                        .access(0, "OperatorCode", "deprecated_builtin_code")?
                        .unwrap_or(0),
                )
            }

            /// Getter for the [`custom_code` field](OperatorCode#structfield.custom_code).
            #[inline]
            pub fn custom_code(
                &self,
            ) -> ::planus::Result<::core::option::Option<&'a ::core::primitive::str>> {
                self.0.access(1, "OperatorCode", "custom_code")
            }

            /// Getter for the [`version` field](OperatorCode#structfield.version).
            #[inline]
            pub fn version(&self) -> ::planus::Result<i32> {
                ::core::result::Result::Ok(
                    self.0.access(2, "OperatorCode", "version")?.unwrap_or(1),
                )
            }

            /// Getter for the [`builtin_code` field](OperatorCode#structfield.builtin_code).
            #[inline]
            pub fn builtin_code(&self) -> ::planus::Result<i32> {
                ::core::result::Result::Ok(
                    self.0
                        .access(3, "OperatorCode", "builtin_code")?
                        .unwrap_or(0),
                )
            }
        }

        impl<'a> ::core::fmt::Debug for OperatorCodeRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("OperatorCodeRef");
                f.field("deprecated_builtin_code", &self.deprecated_builtin_code());
                if let ::core::option::Option::Some(field_custom_code) =
                    self.custom_code().transpose()
                {
                    f.field("custom_code", &field_custom_code);
                }
                f.field("version", &self.version());
                f.field("builtin_code", &self.builtin_code());
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<OperatorCodeRef<'a>> for OperatorCode {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: OperatorCodeRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    deprecated_builtin_code: ::core::convert::TryInto::try_into(
                        value.deprecated_builtin_code()?,
                    )?,
                    custom_code: value.custom_code()?.map(::core::convert::Into::into),
                    version: ::core::convert::TryInto::try_into(value.version()?)?,
                    builtin_code: ::core::convert::TryInto::try_into(value.builtin_code()?)?,
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for OperatorCodeRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for OperatorCodeRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location(
                        "[OperatorCodeRef]",
                        "get",
                        buffer.offset_from_start,
                    )
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<OperatorCode>> for OperatorCode {
            type Value = ::planus::Offset<OperatorCode>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<OperatorCode>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for OperatorCodeRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| {
                    error_kind.with_error_location("[OperatorCodeRef]", "read_as_root", 0)
                })
            }
        }

        /// The table `Buffer` in the namespace `tflite`
        ///
        /// Generated from these locations:
        /// * Table `Buffer` in the file `model/src/tflite/schema.fbs:84`
        #[derive(
            Clone,
            Debug,
            PartialEq,
            PartialOrd,
            Eq,
            Ord,
            Hash,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub struct Buffer {
            /// The field `data` in the table `Buffer`
            pub data: ::core::option::Option<::planus::alloc::vec::Vec<u8>>,
            /// The field `offset` in the table `Buffer`
            pub offset: u64,
            /// The field `size` in the table `Buffer`
            pub size: u64,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for Buffer {
            fn default() -> Self {
                Self {
                    data: ::core::default::Default::default(),
                    offset: 0,
                    size: 0,
                }
            }
        }

        impl Buffer {
            /// Creates a [BufferBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> BufferBuilder<()> {
                BufferBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_data: impl ::planus::WriteAsOptional<::planus::Offset<[u8]>>,
                field_offset: impl ::planus::WriteAsDefault<u64, u64>,
                field_size: impl ::planus::WriteAsDefault<u64, u64>,
            ) -> ::planus::Offset<Self> {
                let prepared_data = field_data.prepare(builder);
                let prepared_offset = field_offset.prepare(builder, &0);
                let prepared_size = field_size.prepare(builder, &0);

                let mut table_writer: ::planus::table_writer::TableWriter<10> =
                    ::core::default::Default::default();
                if prepared_data.is_some() {
                    table_writer.write_entry::<::planus::Offset<[u8]>>(0);
                }
                if prepared_offset.is_some() {
                    table_writer.write_entry::<u64>(1);
                }
                if prepared_size.is_some() {
                    table_writer.write_entry::<u64>(2);
                }

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        if let ::core::option::Option::Some(prepared_data) = prepared_data {
                            object_writer.write::<_, _, 4>(&prepared_data);
                        }
                        if let ::core::option::Option::Some(prepared_offset) = prepared_offset {
                            object_writer.write::<_, _, 8>(&prepared_offset);
                        }
                        if let ::core::option::Option::Some(prepared_size) = prepared_size {
                            object_writer.write::<_, _, 8>(&prepared_size);
                        }
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<Buffer>> for Buffer {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Buffer> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<Buffer>> for Buffer {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Buffer>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<Buffer> for Buffer {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Buffer> {
                Buffer::create(builder, &self.data, self.offset, self.size)
            }
        }

        /// Builder for serializing an instance of the [Buffer] type.
        ///
        /// Can be created using the [Buffer::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct BufferBuilder<State>(State);

        impl BufferBuilder<()> {
            /// Setter for the [`data` field](Buffer#structfield.data).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn data<T0>(self, value: T0) -> BufferBuilder<(T0,)>
            where
                T0: ::planus::WriteAsOptional<::planus::Offset<[u8]>>,
            {
                BufferBuilder((value,))
            }

            /// Sets the [`data` field](Buffer#structfield.data) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn data_as_null(self) -> BufferBuilder<((),)> {
                self.data(())
            }
        }

        impl<T0> BufferBuilder<(T0,)> {
            /// Setter for the [`offset` field](Buffer#structfield.offset).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn offset<T1>(self, value: T1) -> BufferBuilder<(T0, T1)>
            where
                T1: ::planus::WriteAsDefault<u64, u64>,
            {
                let (v0,) = self.0;
                BufferBuilder((v0, value))
            }

            /// Sets the [`offset` field](Buffer#structfield.offset) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn offset_as_default(self) -> BufferBuilder<(T0, ::planus::DefaultValue)> {
                self.offset(::planus::DefaultValue)
            }
        }

        impl<T0, T1> BufferBuilder<(T0, T1)> {
            /// Setter for the [`size` field](Buffer#structfield.size).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn size<T2>(self, value: T2) -> BufferBuilder<(T0, T1, T2)>
            where
                T2: ::planus::WriteAsDefault<u64, u64>,
            {
                let (v0, v1) = self.0;
                BufferBuilder((v0, v1, value))
            }

            /// Sets the [`size` field](Buffer#structfield.size) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn size_as_default(self) -> BufferBuilder<(T0, T1, ::planus::DefaultValue)> {
                self.size(::planus::DefaultValue)
            }
        }

        impl<T0, T1, T2> BufferBuilder<(T0, T1, T2)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Buffer].
            #[inline]
            pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Buffer>
            where
                Self: ::planus::WriteAsOffset<Buffer>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<[u8]>>,
                T1: ::planus::WriteAsDefault<u64, u64>,
                T2: ::planus::WriteAsDefault<u64, u64>,
            > ::planus::WriteAs<::planus::Offset<Buffer>> for BufferBuilder<(T0, T1, T2)>
        {
            type Prepared = ::planus::Offset<Buffer>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Buffer> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<[u8]>>,
                T1: ::planus::WriteAsDefault<u64, u64>,
                T2: ::planus::WriteAsDefault<u64, u64>,
            > ::planus::WriteAsOptional<::planus::Offset<Buffer>> for BufferBuilder<(T0, T1, T2)>
        {
            type Prepared = ::planus::Offset<Buffer>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Buffer>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<[u8]>>,
                T1: ::planus::WriteAsDefault<u64, u64>,
                T2: ::planus::WriteAsDefault<u64, u64>,
            > ::planus::WriteAsOffset<Buffer> for BufferBuilder<(T0, T1, T2)>
        {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Buffer> {
                let (v0, v1, v2) = &self.0;
                Buffer::create(builder, v0, v1, v2)
            }
        }

        /// Reference to a deserialized [Buffer].
        #[derive(Copy, Clone)]
        pub struct BufferRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

        impl<'a> BufferRef<'a> {
            /// Getter for the [`data` field](Buffer#structfield.data).
            #[inline]
            pub fn data(&self) -> ::planus::Result<::core::option::Option<&'a [u8]>> {
                self.0.access(0, "Buffer", "data")
            }

            /// Getter for the [`offset` field](Buffer#structfield.offset).
            #[inline]
            pub fn offset(&self) -> ::planus::Result<u64> {
                ::core::result::Result::Ok(self.0.access(1, "Buffer", "offset")?.unwrap_or(0))
            }

            /// Getter for the [`size` field](Buffer#structfield.size).
            #[inline]
            pub fn size(&self) -> ::planus::Result<u64> {
                ::core::result::Result::Ok(self.0.access(2, "Buffer", "size")?.unwrap_or(0))
            }
        }

        impl<'a> ::core::fmt::Debug for BufferRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("BufferRef");
                if let ::core::option::Option::Some(field_data) = self.data().transpose() {
                    f.field("data", &field_data);
                }
                f.field("offset", &self.offset());
                f.field("size", &self.size());
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<BufferRef<'a>> for Buffer {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: BufferRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    data: value.data()?.map(|v| v.to_vec()),
                    offset: ::core::convert::TryInto::try_into(value.offset()?)?,
                    size: ::core::convert::TryInto::try_into(value.size()?)?,
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for BufferRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for BufferRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location("[BufferRef]", "get", buffer.offset_from_start)
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<Buffer>> for Buffer {
            type Value = ::planus::Offset<Buffer>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<Buffer>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for BufferRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| {
                    error_kind.with_error_location("[BufferRef]", "read_as_root", 0)
                })
            }
        }

        /// The table `Metadata` in the namespace `tflite`
        ///
        /// Generated from these locations:
        /// * Table `Metadata` in the file `model/src/tflite/schema.fbs:92`
        #[derive(
            Clone,
            Debug,
            PartialEq,
            PartialOrd,
            Eq,
            Ord,
            Hash,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub struct Metadata {
            /// The field `name` in the table `Metadata`
            pub name: ::core::option::Option<::planus::alloc::string::String>,
            /// The field `buffer` in the table `Metadata`
            pub buffer: u32,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for Metadata {
            fn default() -> Self {
                Self {
                    name: ::core::default::Default::default(),
                    buffer: 0,
                }
            }
        }

        impl Metadata {
            /// Creates a [MetadataBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> MetadataBuilder<()> {
                MetadataBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_name: impl ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                field_buffer: impl ::planus::WriteAsDefault<u32, u32>,
            ) -> ::planus::Offset<Self> {
                let prepared_name = field_name.prepare(builder);
                let prepared_buffer = field_buffer.prepare(builder, &0);

                let mut table_writer: ::planus::table_writer::TableWriter<8> =
                    ::core::default::Default::default();
                if prepared_name.is_some() {
                    table_writer.write_entry::<::planus::Offset<str>>(0);
                }
                if prepared_buffer.is_some() {
                    table_writer.write_entry::<u32>(1);
                }

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        if let ::core::option::Option::Some(prepared_name) = prepared_name {
                            object_writer.write::<_, _, 4>(&prepared_name);
                        }
                        if let ::core::option::Option::Some(prepared_buffer) = prepared_buffer {
                            object_writer.write::<_, _, 4>(&prepared_buffer);
                        }
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<Metadata>> for Metadata {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Metadata> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<Metadata>> for Metadata {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Metadata>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<Metadata> for Metadata {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Metadata> {
                Metadata::create(builder, &self.name, self.buffer)
            }
        }

        /// Builder for serializing an instance of the [Metadata] type.
        ///
        /// Can be created using the [Metadata::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct MetadataBuilder<State>(State);

        impl MetadataBuilder<()> {
            /// Setter for the [`name` field](Metadata#structfield.name).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn name<T0>(self, value: T0) -> MetadataBuilder<(T0,)>
            where
                T0: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            {
                MetadataBuilder((value,))
            }

            /// Sets the [`name` field](Metadata#structfield.name) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn name_as_null(self) -> MetadataBuilder<((),)> {
                self.name(())
            }
        }

        impl<T0> MetadataBuilder<(T0,)> {
            /// Setter for the [`buffer` field](Metadata#structfield.buffer).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn buffer<T1>(self, value: T1) -> MetadataBuilder<(T0, T1)>
            where
                T1: ::planus::WriteAsDefault<u32, u32>,
            {
                let (v0,) = self.0;
                MetadataBuilder((v0, value))
            }

            /// Sets the [`buffer` field](Metadata#structfield.buffer) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn buffer_as_default(self) -> MetadataBuilder<(T0, ::planus::DefaultValue)> {
                self.buffer(::planus::DefaultValue)
            }
        }

        impl<T0, T1> MetadataBuilder<(T0, T1)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Metadata].
            #[inline]
            pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Metadata>
            where
                Self: ::planus::WriteAsOffset<Metadata>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                T1: ::planus::WriteAsDefault<u32, u32>,
            > ::planus::WriteAs<::planus::Offset<Metadata>> for MetadataBuilder<(T0, T1)>
        {
            type Prepared = ::planus::Offset<Metadata>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Metadata> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                T1: ::planus::WriteAsDefault<u32, u32>,
            > ::planus::WriteAsOptional<::planus::Offset<Metadata>> for MetadataBuilder<(T0, T1)>
        {
            type Prepared = ::planus::Offset<Metadata>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Metadata>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<
                T0: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                T1: ::planus::WriteAsDefault<u32, u32>,
            > ::planus::WriteAsOffset<Metadata> for MetadataBuilder<(T0, T1)>
        {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Metadata> {
                let (v0, v1) = &self.0;
                Metadata::create(builder, v0, v1)
            }
        }

        /// Reference to a deserialized [Metadata].
        #[derive(Copy, Clone)]
        pub struct MetadataRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

        impl<'a> MetadataRef<'a> {
            /// Getter for the [`name` field](Metadata#structfield.name).
            #[inline]
            pub fn name(
                &self,
            ) -> ::planus::Result<::core::option::Option<&'a ::core::primitive::str>> {
                self.0.access(0, "Metadata", "name")
            }

            /// Getter for the [`buffer` field](Metadata#structfield.buffer).
            #[inline]
            pub fn buffer(&self) -> ::planus::Result<u32> {
                ::core::result::Result::Ok(self.0.access(1, "Metadata", "buffer")?.unwrap_or(0))
            }
        }

        impl<'a> ::core::fmt::Debug for MetadataRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("MetadataRef");
                if let ::core::option::Option::Some(field_name) = self.name().transpose() {
                    f.field("name", &field_name);
                }
                f.field("buffer", &self.buffer());
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<MetadataRef<'a>> for Metadata {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: MetadataRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    name: value.name()?.map(::core::convert::Into::into),
                    buffer: ::core::convert::TryInto::try_into(value.buffer()?)?,
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for MetadataRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for MetadataRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location("[MetadataRef]", "get", buffer.offset_from_start)
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<Metadata>> for Metadata {
            type Value = ::planus::Offset<Metadata>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<Metadata>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for MetadataRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| {
                    error_kind.with_error_location("[MetadataRef]", "read_as_root", 0)
                })
            }
        }

        /// The table `Model` in the namespace `tflite`
        ///
        /// Generated from these locations:
        /// * Table `Model` in the file `model/src/tflite/schema.fbs:97`
        #[derive(Clone, Debug, PartialEq, PartialOrd, ::serde::Serialize, ::serde::Deserialize)]
        pub struct Model {
            /// The field `version` in the table `Model`
            pub version: u32,
            /// The field `operator_codes` in the table `Model`
            pub operator_codes:
                ::core::option::Option<::planus::alloc::vec::Vec<self::OperatorCode>>,
            /// The field `subgraphs` in the table `Model`
            pub subgraphs: ::core::option::Option<::planus::alloc::vec::Vec<self::SubGraph>>,
            /// The field `description` in the table `Model`
            pub description: ::core::option::Option<::planus::alloc::string::String>,
            /// The field `buffers` in the table `Model`
            pub buffers: ::core::option::Option<::planus::alloc::vec::Vec<self::Buffer>>,
            /// The field `metadata_buffer` in the table `Model`
            pub metadata_buffer: ::core::option::Option<::planus::alloc::vec::Vec<i32>>,
            /// The field `metadata` in the table `Model`
            pub metadata: ::core::option::Option<::planus::alloc::vec::Vec<self::Metadata>>,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for Model {
            fn default() -> Self {
                Self {
                    version: 0,
                    operator_codes: ::core::default::Default::default(),
                    subgraphs: ::core::default::Default::default(),
                    description: ::core::default::Default::default(),
                    buffers: ::core::default::Default::default(),
                    metadata_buffer: ::core::default::Default::default(),
                    metadata: ::core::default::Default::default(),
                }
            }
        }

        impl Model {
            /// Creates a [ModelBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> ModelBuilder<()> {
                ModelBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_version: impl ::planus::WriteAsDefault<u32, u32>,
                field_operator_codes: impl ::planus::WriteAsOptional<
                    ::planus::Offset<[::planus::Offset<self::OperatorCode>]>,
                >,
                field_subgraphs: impl ::planus::WriteAsOptional<
                    ::planus::Offset<[::planus::Offset<self::SubGraph>]>,
                >,
                field_description: impl ::planus::WriteAsOptional<
                    ::planus::Offset<::core::primitive::str>,
                >,
                field_buffers: impl ::planus::WriteAsOptional<
                    ::planus::Offset<[::planus::Offset<self::Buffer>]>,
                >,
                field_metadata_buffer: impl ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                field_metadata: impl ::planus::WriteAsOptional<
                    ::planus::Offset<[::planus::Offset<self::Metadata>]>,
                >,
            ) -> ::planus::Offset<Self> {
                let prepared_version = field_version.prepare(builder, &0);
                let prepared_operator_codes = field_operator_codes.prepare(builder);
                let prepared_subgraphs = field_subgraphs.prepare(builder);
                let prepared_description = field_description.prepare(builder);
                let prepared_buffers = field_buffers.prepare(builder);
                let prepared_metadata_buffer = field_metadata_buffer.prepare(builder);
                let prepared_metadata = field_metadata.prepare(builder);

                let mut table_writer: ::planus::table_writer::TableWriter<18> =
                    ::core::default::Default::default();
                if prepared_version.is_some() {
                    table_writer.write_entry::<u32>(0);
                }
                if prepared_operator_codes.is_some() {
                    table_writer
                        .write_entry::<::planus::Offset<[::planus::Offset<self::OperatorCode>]>>(1);
                }
                if prepared_subgraphs.is_some() {
                    table_writer
                        .write_entry::<::planus::Offset<[::planus::Offset<self::SubGraph>]>>(2);
                }
                if prepared_description.is_some() {
                    table_writer.write_entry::<::planus::Offset<str>>(3);
                }
                if prepared_buffers.is_some() {
                    table_writer
                        .write_entry::<::planus::Offset<[::planus::Offset<self::Buffer>]>>(4);
                }
                if prepared_metadata_buffer.is_some() {
                    table_writer.write_entry::<::planus::Offset<[i32]>>(5);
                }
                if prepared_metadata.is_some() {
                    table_writer
                        .write_entry::<::planus::Offset<[::planus::Offset<self::Metadata>]>>(6);
                }

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        if let ::core::option::Option::Some(prepared_version) = prepared_version {
                            object_writer.write::<_, _, 4>(&prepared_version);
                        }
                        if let ::core::option::Option::Some(prepared_operator_codes) =
                            prepared_operator_codes
                        {
                            object_writer.write::<_, _, 4>(&prepared_operator_codes);
                        }
                        if let ::core::option::Option::Some(prepared_subgraphs) = prepared_subgraphs
                        {
                            object_writer.write::<_, _, 4>(&prepared_subgraphs);
                        }
                        if let ::core::option::Option::Some(prepared_description) =
                            prepared_description
                        {
                            object_writer.write::<_, _, 4>(&prepared_description);
                        }
                        if let ::core::option::Option::Some(prepared_buffers) = prepared_buffers {
                            object_writer.write::<_, _, 4>(&prepared_buffers);
                        }
                        if let ::core::option::Option::Some(prepared_metadata_buffer) =
                            prepared_metadata_buffer
                        {
                            object_writer.write::<_, _, 4>(&prepared_metadata_buffer);
                        }
                        if let ::core::option::Option::Some(prepared_metadata) = prepared_metadata {
                            object_writer.write::<_, _, 4>(&prepared_metadata);
                        }
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<Model>> for Model {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Model> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<Model>> for Model {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Model>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<Model> for Model {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Model> {
                Model::create(
                    builder,
                    self.version,
                    &self.operator_codes,
                    &self.subgraphs,
                    &self.description,
                    &self.buffers,
                    &self.metadata_buffer,
                    &self.metadata,
                )
            }
        }

        /// Builder for serializing an instance of the [Model] type.
        ///
        /// Can be created using the [Model::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct ModelBuilder<State>(State);

        impl ModelBuilder<()> {
            /// Setter for the [`version` field](Model#structfield.version).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn version<T0>(self, value: T0) -> ModelBuilder<(T0,)>
            where
                T0: ::planus::WriteAsDefault<u32, u32>,
            {
                ModelBuilder((value,))
            }

            /// Sets the [`version` field](Model#structfield.version) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn version_as_default(self) -> ModelBuilder<(::planus::DefaultValue,)> {
                self.version(::planus::DefaultValue)
            }
        }

        impl<T0> ModelBuilder<(T0,)> {
            /// Setter for the [`operator_codes` field](Model#structfield.operator_codes).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn operator_codes<T1>(self, value: T1) -> ModelBuilder<(T0, T1)>
            where
                T1: ::planus::WriteAsOptional<
                    ::planus::Offset<[::planus::Offset<self::OperatorCode>]>,
                >,
            {
                let (v0,) = self.0;
                ModelBuilder((v0, value))
            }

            /// Sets the [`operator_codes` field](Model#structfield.operator_codes) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn operator_codes_as_null(self) -> ModelBuilder<(T0, ())> {
                self.operator_codes(())
            }
        }

        impl<T0, T1> ModelBuilder<(T0, T1)> {
            /// Setter for the [`subgraphs` field](Model#structfield.subgraphs).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn subgraphs<T2>(self, value: T2) -> ModelBuilder<(T0, T1, T2)>
            where
                T2: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::SubGraph>]>>,
            {
                let (v0, v1) = self.0;
                ModelBuilder((v0, v1, value))
            }

            /// Sets the [`subgraphs` field](Model#structfield.subgraphs) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn subgraphs_as_null(self) -> ModelBuilder<(T0, T1, ())> {
                self.subgraphs(())
            }
        }

        impl<T0, T1, T2> ModelBuilder<(T0, T1, T2)> {
            /// Setter for the [`description` field](Model#structfield.description).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn description<T3>(self, value: T3) -> ModelBuilder<(T0, T1, T2, T3)>
            where
                T3: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            {
                let (v0, v1, v2) = self.0;
                ModelBuilder((v0, v1, v2, value))
            }

            /// Sets the [`description` field](Model#structfield.description) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn description_as_null(self) -> ModelBuilder<(T0, T1, T2, ())> {
                self.description(())
            }
        }

        impl<T0, T1, T2, T3> ModelBuilder<(T0, T1, T2, T3)> {
            /// Setter for the [`buffers` field](Model#structfield.buffers).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn buffers<T4>(self, value: T4) -> ModelBuilder<(T0, T1, T2, T3, T4)>
            where
                T4: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Buffer>]>>,
            {
                let (v0, v1, v2, v3) = self.0;
                ModelBuilder((v0, v1, v2, v3, value))
            }

            /// Sets the [`buffers` field](Model#structfield.buffers) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn buffers_as_null(self) -> ModelBuilder<(T0, T1, T2, T3, ())> {
                self.buffers(())
            }
        }

        impl<T0, T1, T2, T3, T4> ModelBuilder<(T0, T1, T2, T3, T4)> {
            /// Setter for the [`metadata_buffer` field](Model#structfield.metadata_buffer).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn metadata_buffer<T5>(self, value: T5) -> ModelBuilder<(T0, T1, T2, T3, T4, T5)>
            where
                T5: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
            {
                let (v0, v1, v2, v3, v4) = self.0;
                ModelBuilder((v0, v1, v2, v3, v4, value))
            }

            /// Sets the [`metadata_buffer` field](Model#structfield.metadata_buffer) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn metadata_buffer_as_null(self) -> ModelBuilder<(T0, T1, T2, T3, T4, ())> {
                self.metadata_buffer(())
            }
        }

        impl<T0, T1, T2, T3, T4, T5> ModelBuilder<(T0, T1, T2, T3, T4, T5)> {
            /// Setter for the [`metadata` field](Model#structfield.metadata).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn metadata<T6>(self, value: T6) -> ModelBuilder<(T0, T1, T2, T3, T4, T5, T6)>
            where
                T6: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Metadata>]>>,
            {
                let (v0, v1, v2, v3, v4, v5) = self.0;
                ModelBuilder((v0, v1, v2, v3, v4, v5, value))
            }

            /// Sets the [`metadata` field](Model#structfield.metadata) to null.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn metadata_as_null(self) -> ModelBuilder<(T0, T1, T2, T3, T4, T5, ())> {
                self.metadata(())
            }
        }

        impl<T0, T1, T2, T3, T4, T5, T6> ModelBuilder<(T0, T1, T2, T3, T4, T5, T6)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Model].
            #[inline]
            pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Model>
            where
                Self: ::planus::WriteAsOffset<Model>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u32, u32>,
                T1: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::OperatorCode>]>>,
                T2: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::SubGraph>]>>,
                T3: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                T4: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Buffer>]>>,
                T5: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T6: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Metadata>]>>,
            > ::planus::WriteAs<::planus::Offset<Model>>
            for ModelBuilder<(T0, T1, T2, T3, T4, T5, T6)>
        {
            type Prepared = ::planus::Offset<Model>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Model> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u32, u32>,
                T1: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::OperatorCode>]>>,
                T2: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::SubGraph>]>>,
                T3: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                T4: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Buffer>]>>,
                T5: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T6: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Metadata>]>>,
            > ::planus::WriteAsOptional<::planus::Offset<Model>>
            for ModelBuilder<(T0, T1, T2, T3, T4, T5, T6)>
        {
            type Prepared = ::planus::Offset<Model>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Model>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u32, u32>,
                T1: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::OperatorCode>]>>,
                T2: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::SubGraph>]>>,
                T3: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
                T4: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Buffer>]>>,
                T5: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
                T6: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Metadata>]>>,
            > ::planus::WriteAsOffset<Model> for ModelBuilder<(T0, T1, T2, T3, T4, T5, T6)>
        {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Model> {
                let (v0, v1, v2, v3, v4, v5, v6) = &self.0;
                Model::create(builder, v0, v1, v2, v3, v4, v5, v6)
            }
        }

        /// Reference to a deserialized [Model].
        #[derive(Copy, Clone)]
        pub struct ModelRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

        impl<'a> ModelRef<'a> {
            /// Getter for the [`version` field](Model#structfield.version).
            #[inline]
            pub fn version(&self) -> ::planus::Result<u32> {
                ::core::result::Result::Ok(self.0.access(0, "Model", "version")?.unwrap_or(0))
            }

            /// Getter for the [`operator_codes` field](Model#structfield.operator_codes).
            #[inline]
            pub fn operator_codes(
                &self,
            ) -> ::planus::Result<
                ::core::option::Option<
                    ::planus::Vector<'a, ::planus::Result<self::OperatorCodeRef<'a>>>,
                >,
            > {
                self.0.access(1, "Model", "operator_codes")
            }

            /// Getter for the [`subgraphs` field](Model#structfield.subgraphs).
            #[inline]
            pub fn subgraphs(
                &self,
            ) -> ::planus::Result<
                ::core::option::Option<
                    ::planus::Vector<'a, ::planus::Result<self::SubGraphRef<'a>>>,
                >,
            > {
                self.0.access(2, "Model", "subgraphs")
            }

            /// Getter for the [`description` field](Model#structfield.description).
            #[inline]
            pub fn description(
                &self,
            ) -> ::planus::Result<::core::option::Option<&'a ::core::primitive::str>> {
                self.0.access(3, "Model", "description")
            }

            /// Getter for the [`buffers` field](Model#structfield.buffers).
            #[inline]
            pub fn buffers(
                &self,
            ) -> ::planus::Result<
                ::core::option::Option<::planus::Vector<'a, ::planus::Result<self::BufferRef<'a>>>>,
            > {
                self.0.access(4, "Model", "buffers")
            }

            /// Getter for the [`metadata_buffer` field](Model#structfield.metadata_buffer).
            #[inline]
            pub fn metadata_buffer(
                &self,
            ) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, i32>>> {
                self.0.access(5, "Model", "metadata_buffer")
            }

            /// Getter for the [`metadata` field](Model#structfield.metadata).
            #[inline]
            pub fn metadata(
                &self,
            ) -> ::planus::Result<
                ::core::option::Option<
                    ::planus::Vector<'a, ::planus::Result<self::MetadataRef<'a>>>,
                >,
            > {
                self.0.access(6, "Model", "metadata")
            }
        }

        impl<'a> ::core::fmt::Debug for ModelRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("ModelRef");
                f.field("version", &self.version());
                if let ::core::option::Option::Some(field_operator_codes) =
                    self.operator_codes().transpose()
                {
                    f.field("operator_codes", &field_operator_codes);
                }
                if let ::core::option::Option::Some(field_subgraphs) = self.subgraphs().transpose()
                {
                    f.field("subgraphs", &field_subgraphs);
                }
                if let ::core::option::Option::Some(field_description) =
                    self.description().transpose()
                {
                    f.field("description", &field_description);
                }
                if let ::core::option::Option::Some(field_buffers) = self.buffers().transpose() {
                    f.field("buffers", &field_buffers);
                }
                if let ::core::option::Option::Some(field_metadata_buffer) =
                    self.metadata_buffer().transpose()
                {
                    f.field("metadata_buffer", &field_metadata_buffer);
                }
                if let ::core::option::Option::Some(field_metadata) = self.metadata().transpose() {
                    f.field("metadata", &field_metadata);
                }
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<ModelRef<'a>> for Model {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: ModelRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    version: ::core::convert::TryInto::try_into(value.version()?)?,
                    operator_codes: if let ::core::option::Option::Some(operator_codes) =
                        value.operator_codes()?
                    {
                        ::core::option::Option::Some(operator_codes.to_vec_result()?)
                    } else {
                        ::core::option::Option::None
                    },
                    subgraphs: if let ::core::option::Option::Some(subgraphs) = value.subgraphs()? {
                        ::core::option::Option::Some(subgraphs.to_vec_result()?)
                    } else {
                        ::core::option::Option::None
                    },
                    description: value.description()?.map(::core::convert::Into::into),
                    buffers: if let ::core::option::Option::Some(buffers) = value.buffers()? {
                        ::core::option::Option::Some(buffers.to_vec_result()?)
                    } else {
                        ::core::option::Option::None
                    },
                    metadata_buffer: if let ::core::option::Option::Some(metadata_buffer) =
                        value.metadata_buffer()?
                    {
                        ::core::option::Option::Some(metadata_buffer.to_vec()?)
                    } else {
                        ::core::option::Option::None
                    },
                    metadata: if let ::core::option::Option::Some(metadata) = value.metadata()? {
                        ::core::option::Option::Some(metadata.to_vec_result()?)
                    } else {
                        ::core::option::Option::None
                    },
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for ModelRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for ModelRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location("[ModelRef]", "get", buffer.offset_from_start)
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<Model>> for Model {
            type Value = ::planus::Offset<Model>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<Model>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for ModelRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| {
                    error_kind.with_error_location("[ModelRef]", "read_as_root", 0)
                })
            }
        }
    }
}
