"""The two messages of grpc.health.v1.Health/Check, built at run time.

Debian's python3-grpcio ships no grpc_health package, and the stubs script
generates only the ikd API; the health check needs just a request with one
string and an answer with one enum, so they are declared here (as in
/usr/share/grpc-proto/grpc/health/v1/health.proto) in a pool of their own.
"""
from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

CHECK_METHOD = "/grpc.health.v1.Health/Check"
#: HealthCheckResponse.ServingStatus.SERVING
SERVING = 1


def _build() -> tuple[type, type]:
    file = descriptor_pb2.FileDescriptorProto(
        name="ikd_client/grpc_health_v1.proto", package="grpc.health.v1", syntax="proto3"
    )
    request = file.message_type.add(name="HealthCheckRequest")
    request.field.add(
        name="service", number=1,
        type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
        label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
    )
    response = file.message_type.add(name="HealthCheckResponse")
    status = response.enum_type.add(name="ServingStatus")
    for number, name in enumerate(("UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN")):
        status.value.add(name=name, number=number)
    response.field.add(
        name="status", number=1,
        type=descriptor_pb2.FieldDescriptorProto.TYPE_ENUM,
        type_name=".grpc.health.v1.HealthCheckResponse.ServingStatus",
        label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    descriptors = [
        pool.FindMessageTypeByName(f"grpc.health.v1.{name}")
        for name in ("HealthCheckRequest", "HealthCheckResponse")
    ]
    get_class = getattr(message_factory, "GetMessageClass", None)  # protobuf >= 4.22
    if get_class is None:
        factory = message_factory.MessageFactory(pool)
        get_class = factory.GetPrototype
    return get_class(descriptors[0]), get_class(descriptors[1])


HealthCheckRequest, HealthCheckResponse = _build()
