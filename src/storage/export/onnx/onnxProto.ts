// ONNX models encoded and decoded with protobufjs from onnx.proto (./onnxProtoText.ts): no
// hand-written protobuf. Field names are onnx.proto's own (snake_case: keepCase).
import protobuf from 'protobufjs';
import { ONNX_PROTO } from './onnxProtoText';

let root: protobuf.Root | null = null;

function onnxRoot(): protobuf.Root {
  root ??= protobuf.parse(ONNX_PROTO, { keepCase: true }).root;
  return root;
}

export function modelProtoType(): protobuf.Type {
  return onnxRoot().lookupType('onnx.ModelProto');
}

/** TensorProto.DataType values used here. */
export const ONNX_FLOAT = 1;
export const ONNX_INT64 = 7;
/** TensorProto.DataLocation.EXTERNAL: the tensor's bytes are in the file its external_data names. */
export const DATA_LOCATION_EXTERNAL = 1;
/** AttributeProto.AttributeType values. */
export const ATTR = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, FLOATS: 6, INTS: 7 } as const;

/** Encodes a ModelProto given as a plain object (onnx.proto field names); throws naming an invalid field. */
export function encodeModel(model: Record<string, unknown>): Uint8Array {
  const type = modelProtoType();
  const problem = type.verify(model);
  if (problem) throw new Error(`ONNX export: invalid model (${problem})`);
  return type.encode(type.fromObject(model)).finish();
}

/** Decodes ONNX bytes into a plain object (int64 as numbers, bytes as Uint8Array). */
export function decodeModel(bytes: Uint8Array): Record<string, unknown> {
  const type = modelProtoType();
  return type.toObject(type.decode(bytes), { longs: Number, bytes: Uint8Array as unknown as typeof String, defaults: false, arrays: true }) as Record<string, unknown>;
}
