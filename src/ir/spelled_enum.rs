//! `spelled_enum!`: a C-like enum whose every variant has one HLO spelling. Opcodes,
//! element types and the small attribute enums (`direction=`, `kind=`) are all declared
//! with it, so each reads as a table and parses and prints the same way.
//! XLA: `xla/hlo/ir/hlo_opcode.h` (`HLO_OPCODE_LIST`), `StringToEnum`.

/// Defines a C-like enum with `name()` (its HLO spelling), `ALL` (every variant, in table
/// order), `FromStr` and `Display`. `case: exact` parses only the spelling as written
/// (opcodes, element types); `case: any` ignores ASCII case, as XLA's `StringToEnum` does
/// for attribute values.
macro_rules! spelled_enum {
    (
        $(#[$meta:meta])*
        $name:ident, case: $case:ident { $( $variant:ident => $text:literal, )* }
    ) => {
        $(#[$meta])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $( #[doc = concat!("`", $text, "`")] $variant, )* }

        impl $name {
            /// Every variant, in table order.
            pub const ALL: &'static [$name] = &[ $( $name::$variant, )* ];

            /// The spelling HLO text uses.
            pub fn name(self) -> &'static str {
                match self { $( $name::$variant => $text, )* }
            }
        }

        impl std::str::FromStr for $name {
            type Err = ();
            fn from_str(s: &str) -> Result<Self, ()> {
                spelled_enum!(@parse $case, s, $( $name::$variant => $text, )*)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
    (@parse exact, $s:ident, $( $variant:path => $text:literal, )*) => {
        match $s { $( $text => Ok($variant), )* _ => Err(()) }
    };
    (@parse any, $s:ident, $( $variant:path => $text:literal, )*) => {{
        $( if $s.eq_ignore_ascii_case($text) { return Ok($variant); } )*
        Err(())
    }};
}
