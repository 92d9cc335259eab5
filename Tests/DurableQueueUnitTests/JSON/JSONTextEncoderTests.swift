import Foundation
import Testing

@testable import DurableQueueCore

/// A superclass whose fields a subclass encodes through `superEncoder()`.
class Animal: Codable, Equatable {
    var legs: Int
    init(legs: Int) { self.legs = legs }
    static func == (lhs: Animal, rhs: Animal) -> Bool { lhs.legs == rhs.legs && type(of: lhs) == type(of: rhs) }
}

final class Dog: Animal {
    var name: String
    private enum CodingKeys: String, CodingKey { case name }

    init(name: String) {
        self.name = name
        super.init(legs: 4)
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try super.encode(to: container.superEncoder())
    }
}

/// Every shape of value the standard library and Foundation give a Codable type.
struct Everything: Codable, Equatable {
    enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case polygon([Int], label: String?)
        case empty
    }

    struct Empty: Codable, Equatable {}

    var text = "quote \" backslash \\ slash / newline \n tab \t bell \u{7} nul \u{0} é 🚀"
    var flag = true
    var integers: [Int64] = [0, -1, .max, .min]
    var unsigned: [UInt64] = [0, .max]
    var small: [Int8] = [-128, 127]
    var doubles: [Double] = [0, -0.5, 1e-300, 1.7976931348623157e308, 0.1, 100]
    var float: Float = 0.1
    var optionalPresent: String? = "here"
    var optionalMissing: String?
    var explicitNull: String??
    var date = Date(timeIntervalSinceReferenceDate: 123_456.789)
    var data = Data([0, 1, 2, 250, 255])
    var url = URL(string: "https://example.com/a/b?c=d#e")!
    var decimal = Decimal(string: "12345.6789")!
    var byName: [String: Int] = ["b": 2, "a": 1]
    var byNumber: [Int: String] = [3: "three", -1: "minus one"]
    var byShape: [Shape: Int] = [.empty: 1]
    var shapes: [Shape] = [.circle(radius: 2.5), .polygon([1, 2, 3], label: nil), .polygon([], label: "x"), .empty]
    var nested: [[String: [Bool]]] = [["k": [true, false]], [:]]
    var empty = Empty()
    var dog: Dog = Dog(name: "Rex")

    static func == (lhs: Everything, rhs: Everything) -> Bool {
        lhs.text == rhs.text && lhs.flag == rhs.flag && lhs.integers == rhs.integers && lhs.unsigned == rhs.unsigned
            && lhs.small == rhs.small && lhs.doubles == rhs.doubles && lhs.float == rhs.float
            && lhs.optionalPresent == rhs.optionalPresent && lhs.optionalMissing == rhs.optionalMissing
            && lhs.date == rhs.date && lhs.data == rhs.data && lhs.url == rhs.url && lhs.decimal == rhs.decimal
            && lhs.byName == rhs.byName && lhs.byNumber == rhs.byNumber && lhs.byShape == rhs.byShape && lhs.shapes == rhs.shapes
            && lhs.nested == rhs.nested && lhs.empty == rhs.empty && lhs.dog == rhs.dog && lhs.dog.name == rhs.dog.name
    }
}

extension Everything.Shape: Hashable {}

/// JSON text as a value that ignores member order and number spelling, to compare two encoders.
func parsed(_ text: String) throws -> NSObject {
    try #require(JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? NSObject)
}

@Suite struct JSONTextEncoderTests {
    @Test func everyShapeOfValueReadsBackAsItWasAndAsFoundationsEncoderWritesIt() throws {
        let value = Everything()
        let text = try JSONTextEncoder.encode(value)
        #expect(try JSONDecoder().decode(Everything.self, from: Data(text.utf8)) == value)
        #expect(try parsed(text) == parsed(String(decoding: try JSONEncoder().encode(value), as: UTF8.self)))
    }

    @Test func topLevelScalarsAndCollectionsMatchFoundationsEncoder() throws {
        func same<T: Codable & Equatable>(_ value: T) throws {
            let text = try JSONTextEncoder.encode(value)
            #expect(try JSONDecoder().decode(T.self, from: Data(text.utf8)) == value, "\(text)")
            #expect(try parsed(text) == parsed(String(decoding: try JSONEncoder().encode(value), as: UTF8.self)), "\(text)")
        }
        try same("plain")
        try same(42)
        try same(-0.25)
        try same(true)
        try same(Optional<Int>.none)
        try same([String]())
        try same(["a": ["b": 1]])
        try same(Data("bytes".utf8))
        try same(URL(string: "file:///tmp/x%20y")!)
        try same(Date(timeIntervalSince1970: 0))
    }

    @Test func theTextIsCompactInEncodingOrderWithSlashesAsTheyAre() throws {
        struct Ordered: Encodable {
            var zebra = 1
            var apple = "a/b"
            var middle: [Int] = [1, 2]
        }
        #expect(try JSONTextEncoder.encode(Ordered()) == #"{"zebra":1,"apple":"a/b","middle":[1,2]}"#)
        #expect(try JSONTextEncoder.encode("line\nbreak\u{1F}") == #""line\nbreak\u001f""#)
    }

    @Test func whatFoundationsEncoderRefusesIsRefused() throws {
        struct Silent: Encodable {
            func encode(to encoder: any Encoder) throws {}
        }
        #expect(throws: EncodingError.self) { try JSONTextEncoder.encode(Double.infinity) }
        #expect(throws: EncodingError.self) { try JSONTextEncoder.encode([Float.nan]) }
        #expect(throws: EncodingError.self) { try JSONTextEncoder.encode(Decimal.nan) }
        #expect(throws: EncodingError.self) { try JSONTextEncoder.encode(Silent()) }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Silent()) }
        #expect(try JSONTextEncoder.encode([Silent()]) == "[{}]")
    }
}
