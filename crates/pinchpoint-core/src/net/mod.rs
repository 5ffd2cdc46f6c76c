//! The network: packets, nodes, ports and routes.

pub mod loss;
pub mod packet;
pub mod port;
pub mod route_query;
pub mod routing;
pub mod wire;

pub use packet::{Packet, PacketKind, PacketSlab};
pub use port::Port;

/// A node: a host or a router.
#[derive(Clone, Debug)]
pub struct Node {
    /// Name from the scenario.
    pub name: Box<str>,
    /// True for routers.
    pub is_router: bool,
    /// Output ports of this node (indices into the port arena), in link declaration order.
    pub ports: Box<[u32]>,
}
