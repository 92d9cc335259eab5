import Crypto
import Foundation

/// The SHA-256 of `bytes`, as hex.
package func sha256Hex(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
}
