//! The client side of the txbench transaction server (`txbench://`): for now its
//! wire protocol; the engine that speaks it comes with `txbench serve`.

pub mod protocol;
