import KeelConcurrency

/// The status a monitor last published and the streams listening to it: the part every Keel ``NetworkMonitor``
/// shares.
typealias StatusBroadcast = Broadcast<NetworkStatus>
