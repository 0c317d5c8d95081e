//! LangGraph's msgpack (`JsonPlusSerializer`): checkpoints and writes are msgpack maps;
//! LangChain messages are extension values holding `(module, class, model_dump, method)`.

use rmpv::Value;

/// `EXT_PYDANTIC_V2`: `(module, class, model_dump, method)`; LangChain messages use it.
pub const EXT_PYDANTIC_V2: i8 = 5;
/// `EXT_DELTA_SNAPSHOT`: a delta channel's snapshot.
pub const EXT_DELTA_SNAPSHOT: i8 = 7;

/// Decode one msgpack value (the whole blob; trailing bytes are an error).
pub fn value(blob: &[u8]) -> Result<Value, String> {
    let mut rest = blob;
    let v = rmpv::decode::read_value(&mut rest).map_err(|e| format!("not msgpack: {e}"))?;
    if !rest.is_empty() {
        return Err(format!("{} bytes after the msgpack value", rest.len()));
    }
    Ok(v)
}

/// Encode one value.
pub fn encode(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, v).expect("writing to a Vec cannot fail");
    out
}

/// The entry `key` of a msgpack map.
pub fn get<'a>(map: &'a Value, key: &str) -> Option<&'a Value> {
    map.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

/// The entry `key` of a msgpack map, for changing it.
pub fn get_mut<'a>(map: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    match map {
        Value::Map(entries) => entries
            .iter_mut()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v),
        _ => None,
    }
}

/// An extension value's `(module, class)` and its decoded tuple.
pub struct Ext {
    /// The extension code.
    pub code: i8,
    /// The Python module.
    pub module: String,
    /// The Python class.
    pub class: String,
    /// The decoded tuple.
    pub items: Vec<Value>,
}

/// Read an extension value's tuple.
pub fn ext(v: &Value) -> Result<Ext, String> {
    let Value::Ext(code, data) = v else {
        return Err(format!(
            "a plain {} where an extension type was expected",
            kind(v)
        ));
    };
    let inner = value(data).map_err(|e| format!("extension type {code}: {e}"))?;
    let Value::Array(items) = inner else {
        return Err(format!("extension type {code} does not hold a tuple"));
    };
    let text = |i: usize| items.get(i).and_then(|v| v.as_str()).map(str::to_string);
    match (text(0), text(1)) {
        (Some(module), Some(class)) => Ok(Ext {
            code: *code,
            module,
            class,
            items,
        }),
        _ => Err(format!("extension type {code} names no module and class")),
    }
}

/// A LangChain message (extension type 5 of a `langchain_core.messages` class): its
/// `model_dump()` as JSON.
pub fn message(v: &Value) -> Result<serde_json::Value, String> {
    let e = ext(v)?;
    if e.code != EXT_PYDANTIC_V2 || !e.module.starts_with("langchain_core.messages") {
        return Err(format!(
            "extension type {} ({}.{}) is not a LangChain message",
            e.code, e.module, e.class
        ));
    }
    let dump = e
        .items
        .get(2)
        .ok_or_else(|| format!("{}.{} holds no fields", e.module, e.class))?;
    if dump.as_map().is_none() {
        return Err(format!("{}.{} fields are not a map", e.module, e.class));
    }
    Ok(json(dump))
}

/// A msgpack value as JSON. Nested extension values (datetimes, UUIDs, pydantic models in
/// metadata) become `{"$ext": code, "$type": "module.class"}`: enough to see that something
/// is there; the original bytes are what is written back.
pub fn json(v: &Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        Value::Nil => J::Null,
        Value::Boolean(b) => J::Bool(*b),
        Value::Integer(i) => match (i.as_i64(), i.as_u64()) {
            (Some(n), _) => J::from(n),
            (None, Some(n)) => J::from(n),
            _ => J::Null,
        },
        Value::F32(f) => serde_json::Number::from_f64(f64::from(*f)).map_or(J::Null, J::Number),
        Value::F64(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
        Value::String(s) => J::String(String::from_utf8_lossy(s.as_bytes()).into_owned()),
        Value::Binary(b) => J::String(format!("<{} bytes>", b.len())),
        Value::Array(items) => J::Array(items.iter().map(json).collect()),
        Value::Map(entries) => J::Object(
            entries
                .iter()
                .map(|(k, v)| {
                    let key = match k.as_str() {
                        Some(s) => s.to_string(),
                        None => k.to_string(),
                    };
                    (key, json(v))
                })
                .collect(),
        ),
        Value::Ext(code, _) => {
            let ty = ext(v)
                .map(|e| format!("{}.{}", e.module, e.class))
                .unwrap_or_default();
            serde_json::json!({"$ext": code, "$type": ty})
        }
    }
}

/// JSON as a msgpack value (for messages the repair writes).
pub fn from_json(v: &serde_json::Value) -> Value {
    use serde_json::Value as J;
    match v {
        J::Null => Value::Nil,
        J::Bool(b) => Value::Boolean(*b),
        J::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Value::from(i),
            (None, Some(u), _) => Value::from(u),
            (_, _, Some(f)) => Value::F64(f),
            _ => Value::Nil,
        },
        J::String(s) => Value::from(s.as_str()),
        J::Array(items) => Value::Array(items.iter().map(from_json).collect()),
        J::Object(map) => Value::Map(
            map.iter()
                .map(|(k, v)| (Value::from(k.as_str()), from_json(v)))
                .collect(),
        ),
    }
}

/// A LangChain message extension value (`EXT_PYDANTIC_V2`) for `fields` (a `model_dump()`).
pub fn message_ext(module: &str, class: &str, fields: Value) -> Value {
    let tuple = Value::Array(vec![
        Value::from(module),
        Value::from(class),
        fields,
        Value::from("model_validate_json"),
    ]);
    Value::Ext(EXT_PYDANTIC_V2, encode(&tuple))
}

/// What kind of msgpack value `v` is, for messages.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Nil => "nil",
        Value::Boolean(_) => "boolean",
        Value::Integer(_) => "integer",
        Value::F32(_) | Value::F64(_) => "float",
        Value::String(_) => "string",
        Value::Binary(_) => "binary",
        Value::Array(_) => "array",
        Value::Map(_) => "map",
        Value::Ext(..) => "extension",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_round_trips_through_its_extension_type() {
        let fields = from_json(&serde_json::json!({
            "content": "hi", "type": "ai", "tool_calls": [{"id": "c1", "name": "t", "args": {}}]
        }));
        let v = message_ext("langchain_core.messages.ai", "AIMessage", fields);
        let back = message(&value(&encode(&v)).unwrap()).unwrap();
        assert_eq!(back["tool_calls"][0]["id"], "c1");
        assert_eq!(back["type"], "ai");
    }

    #[test]
    fn other_extension_types_are_not_messages() {
        let v = Value::Ext(
            2,
            encode(&Value::Array(vec![
                Value::from("langgraph.types"),
                Value::from("Interrupt"),
                Value::Map(vec![]),
            ])),
        );
        let err = message(&v).unwrap_err();
        assert!(err.contains("langgraph.types.Interrupt"), "{err}");
        assert!(message(&Value::Ext(5, vec![0xc1])).is_err());
        assert!(value(&[0x91]).is_err());
        assert_eq!(json(&v)["$type"], "langgraph.types.Interrupt");
    }
}
