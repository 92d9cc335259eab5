import Foundation
import Synchronization

/// A network namespace of its own (`ip netns`, as root), joined to this host by a veth pair: a
/// process started in it (``WorkerProcess`` with `namespace:`) is another host, reachable at
/// ``hostAddress`` from it and cut off from everything when ``cutOff()`` takes the link down.
package final class NetworkNamespace: Sendable {
    /// The namespace's name (`ip netns exec NAME …`).
    package let name: String
    /// This host's end of the link: where a process in the namespace reaches a server here.
    package let hostAddress: String
    /// The namespace's end of the link.
    package let address: String
    /// This host's end of the veth pair.
    private let hostLink: String

    /// Numbers each namespace of this process.
    private static let counter = Atomic<Int>(0)

    /// Creates the namespace and its link, up. Needs root (CI runs as root) and iproute2.
    package init() throws {
        guard geteuid() == 0 else {
            throw NamespaceError("a network namespace needs root (ip netns); CI runs the tests as root")
        }
        let number = Self.counter.add(1, ordering: .relaxed).newValue
        let pid = Int(getpid())
        let tag = "\(pid % 100_000)x\(number)"
        name = "dq\(tag)"
        hostLink = "dqh\(tag)"
        let peerLink = "dqn\(tag)"
        // A /30 of 10.201.0.0/16 per namespace: pid and number spread it.
        let subnet = (pid % 64) * 1_024 + (number % 256) * 4
        hostAddress = "10.201.\(subnet / 256).\(subnet % 256 + 1)"
        address = "10.201.\(subnet / 256).\(subnet % 256 + 2)"
        try Self.ip(["netns", "add", name])
        do {
            try Self.ip(["link", "add", hostLink, "type", "veth", "peer", "name", peerLink])
            try Self.ip(["link", "set", peerLink, "netns", name])
            try Self.ip(["addr", "add", "\(hostAddress)/30", "dev", hostLink])
            try Self.ip(["link", "set", hostLink, "up"])
            try Self.ip(["netns", "exec", name, "ip", "addr", "add", "\(address)/30", "dev", peerLink])
            try Self.ip(["netns", "exec", name, "ip", "link", "set", peerLink, "up"])
            try Self.ip(["netns", "exec", name, "ip", "link", "set", "lo", "up"])
        } catch {
            remove()
            throw error
        }
    }

    /// The command prefix that runs a program in the namespace.
    package var prefix: [String] { ["/usr/sbin/ip", "netns", "exec", name] }

    /// Takes the link down: packets either way are lost, as when a host drops off the network;
    /// connections stay open on both sides, without answers.
    package func cutOff() throws { try Self.ip(["link", "set", hostLink, "down"]) }

    /// Brings the link back up: open connections carry on where they were.
    package func restore() throws { try Self.ip(["link", "set", hostLink, "up"]) }

    /// Deletes the namespace (its end of the link with it, and so the pair).
    package func remove() {
        try? Self.ip(["netns", "delete", name])
        try? Self.ip(["link", "delete", hostLink])
    }

    /// Runs `ip` with `arguments` and waits for it; throws with what it printed if it fails.
    private static func ip(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        let exit = try ProcessExit.run(process)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let status = exit.wait()
        guard status == 0 else {
            throw NamespaceError("ip \(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
    }

    struct NamespaceError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
