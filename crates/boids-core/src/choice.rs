//! Named choices: enums whose variants a config, a flag or a message names by a word
//! (`"torus"`, `"gaussian"`), declared by one macro wherever the enum belongs.
//!
//! A choice is declared beside the code it steers (the noise's distribution in
//! [`crate::space`], the boundary and the model in [`crate::params`]), and the parameter
//! catalogue reads and writes every choice through the one [`Choice`] trait. This module sits
//! below both, so a choice declared below the parameters needs nothing of them.

/// An enum chosen by name: what the parameter catalogue needs of it.
pub trait Choice: Copy + 'static {
    /// The name used in configs.
    fn name(self) -> &'static str;
    /// The variant of a config name.
    fn from_name(name: &str) -> Option<Self>;
}

/// Declares an enum whose variants are chosen by name in a config, with its list of names,
/// and its [`Choice`] implementation.
macro_rules! choices {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, ::serde::Serialize, ::serde::Deserialize,
        )]
        #[serde(rename_all = "lowercase")]
        pub enum $name {
            $( $(#[$variant_meta])* $variant, )+
        }

        impl $name {
            /// Every variant, in the order of [`Self::NAMES`].
            pub const ALL: &[Self] = &[$(Self::$variant),+];
            /// Every name accepted in a config.
            pub const NAMES: &[&str] = &[$($text),+];

            /// The name used in configs.
            pub fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)+
                }
            }

            /// The variant of a config name.
            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $($text => Some(Self::$variant),)+
                    _ => None,
                }
            }
        }

        impl $crate::choice::Choice for $name {
            fn name(self) -> &'static str {
                Self::name(self)
            }

            fn from_name(name: &str) -> Option<Self> {
                Self::from_name(name)
            }
        }
    };
}

pub(crate) use choices;
