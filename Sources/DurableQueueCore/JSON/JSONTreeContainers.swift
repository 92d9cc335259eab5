/// A JSON object being filled by a value's `encode(to:)`.
struct JSONKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: JSONObjectBox
    let codingPath: [any CodingKey]

    private func put(_ key: Key, _ value: JSONTree) {
        box.contents.startMember(key.stringValue)
        box.contents.append(value)
    }

    mutating func encodeNil(forKey key: Key) { put(key, .literal("null")) }
    mutating func encode(_ value: Bool, forKey key: Key) { put(key, .literal(value ? "true" : "false")) }
    mutating func encode(_ value: String, forKey key: Key) {
        box.contents.startMember(key.stringValue)
        box.contents.appendString(value)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(key, try JSONTreeEncoder.number(value, at: codingPath + [key])) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(key, try JSONTreeEncoder.number(value, at: codingPath + [key])) }
    mutating func encode(_ value: Int, forKey key: Key) { put(key, .literal(String(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) { put(key, .literal(String(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) { put(key, .literal(String(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) { put(key, .literal(String(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) { put(key, .literal(String(value))) }
    mutating func encode(_ value: UInt, forKey key: Key) { put(key, .literal(String(value))) }
    mutating func encode(_ value: UInt8, forKey key: Key) { put(key, .literal(String(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) { put(key, .literal(String(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) { put(key, .literal(String(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) { put(key, .literal(String(value))) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        put(key, try JSONTreeEncoder.tree(for: value, at: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONObjectBox()
        put(key, .object(nested))
        return KeyedEncodingContainer(JSONKeyedContainer<NestedKey>(box: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = JSONArrayBox()
        put(key, .array(nested))
        return JSONUnkeyedContainer(box: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: JSONKey(stringValue: "super")) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key) }

    private func superEncoder(named key: any CodingKey) -> any Encoder {
        let encoder = JSONTreeEncoder(codingPath: codingPath + [key])
        box.contents.startMember(key.stringValue)
        box.contents.append(.deferred(encoder))
        return encoder
    }
}

/// A JSON array being filled by a value's `encode(to:)`.
struct JSONUnkeyedContainer: UnkeyedEncodingContainer {
    let box: JSONArrayBox
    let codingPath: [any CodingKey]
    var count: Int { box.contents.count }

    private var nextPath: [any CodingKey] { codingPath + [JSONKey(intValue: count)] }
    private func put(_ value: JSONTree) {
        box.contents.startElement()
        box.contents.append(value)
    }

    mutating func encodeNil() { put(.literal("null")) }
    mutating func encode(_ value: Bool) { put(.literal(value ? "true" : "false")) }
    mutating func encode(_ value: String) { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(try JSONTreeEncoder.number(value, at: nextPath)) }
    mutating func encode(_ value: Float) throws { put(try JSONTreeEncoder.number(value, at: nextPath)) }
    mutating func encode(_ value: Int) { put(.literal(String(value))) }
    mutating func encode(_ value: Int8) { put(.literal(String(value))) }
    mutating func encode(_ value: Int16) { put(.literal(String(value))) }
    mutating func encode(_ value: Int32) { put(.literal(String(value))) }
    mutating func encode(_ value: Int64) { put(.literal(String(value))) }
    mutating func encode(_ value: UInt) { put(.literal(String(value))) }
    mutating func encode(_ value: UInt8) { put(.literal(String(value))) }
    mutating func encode(_ value: UInt16) { put(.literal(String(value))) }
    mutating func encode(_ value: UInt32) { put(.literal(String(value))) }
    mutating func encode(_ value: UInt64) { put(.literal(String(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws { put(try JSONTreeEncoder.tree(for: value, at: nextPath)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONObjectBox()
        let path = nextPath
        put(.object(nested))
        return KeyedEncodingContainer(JSONKeyedContainer<NestedKey>(box: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = JSONArrayBox()
        let path = nextPath
        put(.array(nested))
        return JSONUnkeyedContainer(box: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = JSONTreeEncoder(codingPath: nextPath)
        put(.deferred(encoder))
        return encoder
    }
}
