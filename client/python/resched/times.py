"""Instants and lengths as the API writes them (Timestamp, Duration) from Python values."""
import datetime

from google.protobuf import duration_pb2, timestamp_pb2

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def duration(value):
    """A Duration from seconds (int or float), a datetime.timedelta or a Duration (copied);
    whole microseconds."""
    if isinstance(value, duration_pb2.Duration):
        micros = value.ToMicroseconds()
    elif isinstance(value, datetime.timedelta):
        micros = value // datetime.timedelta(microseconds=1)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        micros = round(value * 1_000_000)
    else:
        raise TypeError(f"a length is seconds or a datetime.timedelta, got {value!r}")
    out = duration_pb2.Duration()
    out.FromMicroseconds(micros)
    return out


def timestamp(value):
    """A Timestamp from an aware datetime, seconds since the epoch (a SIMULATED cluster's clock
    starts at 0) or a Timestamp (copied)."""
    if isinstance(value, timestamp_pb2.Timestamp):
        micros = value.ToMicroseconds()
    elif isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise ValueError("a naive datetime is ambiguous: give it a tzinfo")
        micros = (value - _EPOCH) // datetime.timedelta(microseconds=1)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        micros = round(value * 1_000_000)
    else:
        raise TypeError(
            f"an instant is an aware datetime or seconds since the epoch, got {value!r}")
    out = timestamp_pb2.Timestamp()
    out.FromMicroseconds(micros)
    return out


def seconds(value):
    """Seconds (float) of a Timestamp (since the epoch) or a Duration."""
    return value.seconds + value.nanos / 1e9


def to_datetime(value):
    """The aware UTC datetime of a Timestamp."""
    return _EPOCH + datetime.timedelta(microseconds=value.ToMicroseconds())
