// ONNX's IR schema: onnx/onnx.proto from github.com/onnx/onnx (commit f7546912, IR version 14 schema; we write IR version 8),
// SPDX-License-Identifier: Apache-2.0 (Copyright (c) ONNX Project Contributors). Comments removed;
// the field definitions are unchanged. Parsed at run time by protobufjs (./onnxProto.ts).
export const ONNX_PROTO = `
syntax = "proto2";
package onnx;
enum Version {
  _START_VERSION = 0;
  IR_VERSION_2017_10_10 = 0x0000000000000001;
  IR_VERSION_2017_10_30 = 0x0000000000000002;
  IR_VERSION_2017_11_3 = 0x0000000000000003;
  IR_VERSION_2019_1_22 = 0x0000000000000004;
  IR_VERSION_2019_3_18 = 0x0000000000000005;
  IR_VERSION_2019_9_19 = 0x0000000000000006;
  IR_VERSION_2020_5_8 = 0x0000000000000007;
  IR_VERSION_2021_7_30 = 0x0000000000000008;
  IR_VERSION_2023_5_5 = 0x0000000000000009;
  IR_VERSION_2024_3_25 = 0x000000000000000A;
  IR_VERSION_2025_05_12 = 0x000000000000000B;
  IR_VERSION_2025_08_26 = 0x000000000000000C;
  IR_VERSION_2025_11_06 = 0x000000000000000D;
  IR_VERSION = 0x000000000000000E;
}
message AttributeProto {
  reserved 12, 16 to 19;
  reserved "v";
  enum AttributeType {
    UNDEFINED = 0;
    FLOAT = 1;
    INT = 2;
    STRING = 3;
    TENSOR = 4;
    GRAPH = 5;
    SPARSE_TENSOR = 11;
    TYPE_PROTO = 13;
    FLOATS = 6;
    INTS = 7;
    STRINGS = 8;
    TENSORS = 9;
    GRAPHS = 10;
    SPARSE_TENSORS = 12;
    TYPE_PROTOS = 14;
  }
  optional string name = 1;
  optional string ref_attr_name = 21;
  optional string doc_string = 13;
  optional AttributeType type = 20;
  optional float f = 2;
  optional int64 i = 3;
  optional bytes s = 4;
  optional TensorProto t = 5;
  optional GraphProto g = 6;
  optional SparseTensorProto sparse_tensor = 22;
  optional TypeProto tp = 14;
  repeated float floats = 7;
  repeated int64 ints = 8;
  repeated bytes strings = 9;
  repeated TensorProto tensors = 10;
  repeated GraphProto graphs = 11;
  repeated SparseTensorProto sparse_tensors = 23;
  repeated TypeProto type_protos = 15;
}
message ValueInfoProto {
  optional string name = 1;
  optional TypeProto type = 2;
  optional string doc_string = 3;
  repeated StringStringEntryProto metadata_props = 4;
}
message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  optional string name = 3;
  optional string op_type = 4;
  optional string domain = 7;
  optional string overload = 8;
  repeated AttributeProto attribute = 5;
  optional string doc_string = 6;
  repeated StringStringEntryProto metadata_props = 9;
  repeated NodeDeviceConfigurationProto device_configurations = 10;
}
message IntIntListEntryProto {
  optional int64 key = 1;
  repeated int64 value = 2;
};
message NodeDeviceConfigurationProto {
    optional string configuration_id = 1;
    repeated ShardingSpecProto sharding_spec = 2;
    optional int32 pipeline_stage = 3;
}
message ShardingSpecProto {
  optional string tensor_name = 1;
  repeated int64 device = 2;
  repeated IntIntListEntryProto index_to_device_group_map = 3;
  repeated ShardedDimProto sharded_dim = 4;
}
message ShardedDimProto {
  optional int64 axis = 1;
  repeated SimpleShardedDimProto simple_sharding = 2;
}
message SimpleShardedDimProto {
    oneof dim {
        int64 dim_value = 1;
        string dim_param = 2;
    }
    optional int64 num_shards = 3;
}
message TrainingInfoProto {
  optional GraphProto initialization = 1;
  optional GraphProto algorithm = 2;
  repeated StringStringEntryProto initialization_binding = 3;
  repeated StringStringEntryProto update_binding = 4;
}
message ModelProto {
  optional int64 ir_version = 1;
  repeated OperatorSetIdProto opset_import = 8;
  optional string producer_name = 2;
  optional string producer_version = 3;
  optional string domain = 4;
  optional int64 model_version = 5;
  optional string doc_string = 6;
  optional GraphProto graph = 7;
  repeated StringStringEntryProto metadata_props = 14;
  repeated TrainingInfoProto training_info = 20;
  repeated FunctionProto functions = 25;
  repeated DeviceConfigurationProto configuration = 26;
};
message DeviceConfigurationProto {
    optional string name = 1;
    optional int32 num_devices = 2;
    repeated string device = 3;
}
message StringStringEntryProto {
  optional string key = 1;
  optional string value = 2;
};
message TensorAnnotation {
  optional string tensor_name = 1;
  repeated StringStringEntryProto quant_parameter_tensor_names = 2;
}
message GraphProto {
  repeated NodeProto node = 1;
  optional string name = 2;
  repeated TensorProto initializer = 5;
  repeated SparseTensorProto sparse_initializer = 15;
  optional string doc_string = 10;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
  repeated ValueInfoProto value_info = 13;
  repeated TensorAnnotation quantization_annotation = 14;
  repeated StringStringEntryProto metadata_props = 16;
  reserved 3, 4, 6 to 9;
  reserved "ir_version", "producer_version", "producer_tag", "domain";
}
message TensorProto {
  enum DataType {
    UNDEFINED = 0;
    FLOAT = 1;
    UINT8 = 2;
    INT8 = 3;
    UINT16 = 4;
    INT16 = 5;
    INT32 = 6;
    INT64 = 7;
    STRING = 8;
    BOOL = 9;
    FLOAT16 = 10;
    DOUBLE = 11;
    UINT32 = 12;
    UINT64 = 13;
    COMPLEX64 = 14;
    COMPLEX128 = 15;
    BFLOAT16 = 16;
    FLOAT8E4M3FN = 17;
    FLOAT8E4M3FNUZ = 18;
    FLOAT8E5M2 = 19;
    FLOAT8E5M2FNUZ = 20;
    UINT4 = 21;
    INT4 = 22;
    FLOAT4E2M1 = 23;
    FLOAT8E8M0 = 24;
    UINT2 = 25;
    INT2 = 26;
  }
  repeated int64 dims = 1;
  optional int32 data_type = 2;
  message Segment {
    optional int64 begin = 1;
    optional int64 end = 2;
  }
  optional Segment segment = 3;
  repeated float float_data = 4 [packed = true];
  repeated int32 int32_data = 5 [packed = true];
  repeated bytes string_data = 6;
  repeated int64 int64_data = 7 [packed = true];
  optional string name = 8;
  optional string doc_string = 12;
  optional bytes raw_data = 9;
  repeated StringStringEntryProto external_data = 13;
  enum DataLocation {
    DEFAULT = 0;
    EXTERNAL = 1;
  }
  optional DataLocation data_location = 14;
  repeated double double_data = 10 [packed = true];
  repeated uint64 uint64_data = 11 [packed = true];
  repeated StringStringEntryProto metadata_props = 16;
}
message SparseTensorProto {
  optional TensorProto values = 1;
  optional TensorProto indices = 2;
  repeated int64 dims = 3;
}
message TensorShapeProto {
  message Dimension {
    oneof value {
      int64 dim_value = 1;
      string dim_param = 2;
    };
    optional string denotation = 3;
  };
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor {
    optional int32 elem_type = 1;
    optional TensorShapeProto shape = 2;
  }
  message Sequence {
    optional TypeProto elem_type = 1;
  };
  message Map {
    optional int32 key_type = 1;
    optional TypeProto value_type = 2;
  };
  message Optional {
    optional TypeProto elem_type = 1;
  };
  message SparseTensor {
    optional int32 elem_type = 1;
    optional TensorShapeProto shape = 2;
  }
  message Opaque {
    optional string domain = 1;
    optional string name = 2;
    reserved 3;
    reserved "parameters";
  }
  oneof value {
    Tensor tensor_type = 1;
    Sequence sequence_type = 4;
    Map map_type = 5;
    Optional optional_type = 9;
    SparseTensor sparse_tensor_type = 8;
    Opaque opaque_type = 7;
  }
  optional string denotation = 6;
}
message OperatorSetIdProto {
  optional string domain = 1;
  optional int64 version = 2;
}
enum OperatorStatus {
    EXPERIMENTAL = 0;
    STABLE = 1;
}
message FunctionProto {
  optional string name = 1;
  reserved 2;
  reserved "since_version";
  reserved 3;
  reserved "status";
  repeated string input = 4;
  repeated string output = 5;
  repeated string attribute = 6;
  repeated AttributeProto attribute_proto = 11;
  repeated NodeProto node = 7;
  optional string doc_string = 8;
  repeated OperatorSetIdProto opset_import = 9;
  optional string domain = 10;
  optional string overload = 13;
  repeated ValueInfoProto value_info = 12;
  repeated StringStringEntryProto metadata_props = 14;
}
option optimize_for = LITE_RUNTIME;
`;
