/// The members of a JSON object, read by a value's `init(from:)`.
struct JSONKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(key: String, value: ParsedJSON)]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    /// The member named `key`; the last one if the object names it twice, as JSONDecoder reads it.
    private func member(_ key: any CodingKey) -> ParsedJSON? {
        let name = key.stringValue
        return members.last { $0.key == name }?.value
    }

    private func required(_ key: Key) throws -> ParsedJSON {
        guard let value = member(key) else {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try required(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try JSONTreeDecoder.bool(required(key), at: codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try JSONTreeDecoder.string(required(key), at: codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try JSONTreeDecoder.floatingPoint(type, required(key), at: codingPath + [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try JSONTreeDecoder.floatingPoint(type, required(key), at: codingPath + [key]) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try JSONTreeDecoder.integer(type, required(key), at: codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try JSONTreeDecoder.integer(type, required(key), at: codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try JSONTreeDecoder.integer(type, required(key), at: codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try JSONTreeDecoder.integer(type, required(key), at: codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try JSONTreeDecoder.integer(type, required(key), at: codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try JSONTreeDecoder.integer(type, required(key), at: codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try JSONTreeDecoder.integer(type, required(key), at: codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try JSONTreeDecoder.integer(type, required(key), at: codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try JSONTreeDecoder.integer(type, required(key), at: codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try JSONTreeDecoder.integer(type, required(key), at: codingPath + [key]) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try JSONTreeDecoder.value(type, from: required(key), at: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try JSONTreeDecoder(json: required(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try JSONTreeDecoder(json: required(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    /// The decoder of member `super`, or of null if there is none (as JSONDecoder does).
    func superDecoder() throws -> any Decoder {
        let key = JSONKey(stringValue: "super")
        return JSONTreeDecoder(json: member(key) ?? .null, codingPath: codingPath + [key])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONTreeDecoder(json: member(key) ?? .null, codingPath: codingPath + [key])
    }
}

/// The elements of a JSON array, read in order by a value's `init(from:)`.
struct JSONUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let values: [ParsedJSON]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(values: [ParsedJSON], codingPath: [any CodingKey]) {
        self.values = values
        self.codingPath = codingPath
    }

    var count: Int? { values.count }
    var isAtEnd: Bool { currentIndex >= values.count }

    private var currentPath: [any CodingKey] { codingPath + [JSONKey(intValue: currentIndex)] }

    /// The next element, consumed once `read` accepts it.
    private mutating func next<T>(_ type: T.Type, _ read: (ParsedJSON, () -> [any CodingKey]) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, DecodingError.Context(codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
        let value = try read(values[currentIndex], { currentPath })
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any?.self, DecodingError.Context(codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
        guard case .null = values[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try JSONTreeDecoder.bool($0, at: $1()) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try JSONTreeDecoder.string($0, at: $1()) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try JSONTreeDecoder.floatingPoint(type, $0, at: $1()) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try JSONTreeDecoder.floatingPoint(type, $0, at: $1()) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try JSONTreeDecoder.integer(type, $0, at: $1()) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try JSONTreeDecoder.integer(type, $0, at: $1()) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try JSONTreeDecoder.integer(type, $0, at: $1()) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try JSONTreeDecoder.integer(type, $0, at: $1()) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try JSONTreeDecoder.integer(type, $0, at: $1()) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try JSONTreeDecoder.integer(type, $0, at: $1()) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try JSONTreeDecoder.integer(type, $0, at: $1()) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try JSONTreeDecoder.integer(type, $0, at: $1()) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try JSONTreeDecoder.integer(type, $0, at: $1()) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try JSONTreeDecoder.integer(type, $0, at: $1()) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) { try JSONTreeDecoder.value(type, from: $0, at: $1()) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self) { try JSONTreeDecoder(json: $0, codingPath: $1()).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self) { try JSONTreeDecoder(json: $0, codingPath: $1()).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next((any Decoder).self) { JSONTreeDecoder(json: $0, codingPath: $1()) }
    }
}
