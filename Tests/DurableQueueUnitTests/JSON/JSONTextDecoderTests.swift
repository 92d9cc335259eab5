import Foundation
import Testing

@testable import DurableQueueCore

/// The kind of a decoding error, to compare with what `JSONDecoder` throws.
private func errorKind(_ body: () throws -> Void) -> String {
    do {
        try body()
        return "no error"
    } catch let error as DecodingError {
        switch error {
        case .typeMismatch: return "typeMismatch"
        case .valueNotFound: return "valueNotFound"
        case .keyNotFound: return "keyNotFound"
        case .dataCorrupted: return "dataCorrupted"
        @unknown default: return "unknown"
        }
    } catch {
        return "\(type(of: error))"
    }
}

@Suite struct JSONTextDecoderTests {
    @Test func whatEitherEncoderWroteReadsBackAsItWas() throws {
        let value = Everything()
        #expect(try JSONTextDecoder.decode(Everything.self, from: JSONTextEncoder.encode(value)) == value)
        #expect(try JSONTextDecoder.decode(Everything.self, from: String(decoding: JSONEncoder().encode(value), as: UTF8.self)) == value)
    }

    @Test func jsonAsOtherWritersWriteItReadsAsFoundationsDecoderReadsIt() throws {
        struct Payload: Codable, Equatable {
            var url: String
            var name: String
            var count: Int
            var ratio: Double
            var tags: [String]
            var nested: [String: [Int]]
            var missing: Int?
        }
        // PostgreSQL's jsonb output, escapes of every kind, numbers in every spelling JSON allows.
        let texts = [
            #"{"url": "http:\/\/a\/b", "name": "caf\u00e9 \ud83d\ude80 \"q\" \\ \n\t\b\f\r", "count": 1e3, "ratio": -1.5E-3, "tags": [], "nested": {"a": [ 1 , -0 ]}}"#,
            " \n\t{\"url\":\"x\",\"name\":\"\",\"count\":-7,\"ratio\":0,\"tags\":[\"a\",\"b\"],\"nested\":{},\"missing\":null}\r\n",
            #"{"url":"x","name":"y","count":2.0,"ratio":1,"tags":["a"],"nested":{"k":[]},"missing":3,"extra":{"ignored":[true,false,null]}}"#,
        ]
        for text in texts {
            let expected = try JSONDecoder().decode(Payload.self, from: Data(text.utf8))
            #expect(try JSONTextDecoder.decode(Payload.self, from: text) == expected, "\(text)")
        }
    }

    @Test func mistakesFailAsFoundationsDecoderFailsThem() throws {
        struct Pair: Codable {
            var a: Int
            var b: String
        }
        let cases: [(type: any Decodable.Type, text: String)] = [
            (Pair.self, #"{"a":1}"#),  // keyNotFound
            (Pair.self, #"{"a":"1","b":"x"}"#),  // typeMismatch
            (Pair.self, #"{"a":null,"b":"x"}"#),  // valueNotFound
            (Pair.self, #"[1,"x"]"#),  // typeMismatch
            (Int8.self, "300"),  // dataCorrupted: out of range
            (Int.self, "1.5"),  // dataCorrupted: not integral
            (UInt.self, "-1"),
            ([Int].self, "[1,2"),  // dataCorrupted: not JSON
            (String.self, #""unterminated"#),
            (String.self, #""bad \x escape""#),
            (String.self, "\"tab\tinside\""),
            (String.self, #""\ud800 lone""#),
            (Int.self, "01"),
            (Int.self, "1 2"),
            (Bool.self, "tru"),
            (Data.self, #""not base64!""#),
            ([String].self, String(repeating: "[", count: 600) + String(repeating: "]", count: 600)),
        ]
        for (type, text) in cases {
            let ours = errorKind { _ = try JSONTextDecoder.decode(type, from: text) }
            let foundations = errorKind { _ = try JSONDecoder().decode(type, from: Data(text.utf8)) }
            #expect(ours == foundations, "\(type) from \(text)")
            #expect(ours != "no error", "\(type) from \(text)")
        }
    }
}
