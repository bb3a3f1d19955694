"""Parser and model for Weir message definition files (*.def).

The format is documented in protocol/gen/README.md. This module is shared by
codegen.py and protocol/test/defs_match_specs_test.py; stdlib only.
"""
import os
import re
from dataclasses import dataclass, field as dc_field
from typing import List, Optional

PRIMITIVES = {
    "bool", "int8", "int16", "int32", "int64", "uint16", "uint32", "float64",
    "string", "bytes", "records", "uuid",
}
INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint16": 16, "uint32": 32}
MAX_VERSION = 0x7FFF


class DefError(Exception):
    pass


@dataclass(frozen=True)
class Versions:
    """A contiguous version range; hi None = open ended; lo None = empty."""
    lo: Optional[int]
    hi: Optional[int]

    @staticmethod
    def parse(text):
        text = text.strip()
        if text == "none":
            return NONE
        m = re.fullmatch(r"(\d+)(\+|-(\d+))?", text)
        if not m:
            raise DefError(f"bad version range {text!r}")
        lo = int(m.group(1))
        if m.group(2) is None:
            return Versions(lo, lo)
        if m.group(2) == "+":
            return Versions(lo, None)
        hi = int(m.group(3))
        if hi < lo:
            raise DefError(f"bad version range {text!r}")
        return Versions(lo, hi)

    @property
    def empty(self):
        return self.lo is None

    @property
    def top(self):
        return MAX_VERSION if self.hi is None else self.hi

    def contains(self, v):
        return not self.empty and self.lo <= v <= self.top

    def intersect(self, other):
        if self.empty or other.empty:
            return NONE
        lo = max(self.lo, other.lo)
        top = min(self.top, other.top)
        if lo > top:
            return NONE
        return Versions(lo, None if top == MAX_VERSION else top)

    def below(self, v):
        """The part of this range strictly below version v."""
        return self.intersect(Versions(0, v - 1)) if v > 0 else NONE

    def __str__(self):
        if self.empty:
            return "none"
        if self.hi is None:
            return f"{self.lo}+"
        if self.hi == self.lo:
            return str(self.lo)
        return f"{self.lo}-{self.hi}"


NONE = Versions(None, None)


@dataclass
class Field:
    name: str
    type: str                 # as written: int32, []Foo, Foo, ...
    versions: Versions
    nullable: Versions = NONE
    tag: Optional[int] = None
    tagged: Versions = NONE
    default: Optional[str] = None   # raw text, quotes removed for quoted strings
    flexible: Optional[Versions] = None  # field-level override
    struct: Optional["Struct"] = None    # resolved struct type (element type for arrays)
    line: int = 0

    @property
    def is_array(self):
        return self.type.startswith("[]")

    @property
    def base_type(self):
        return self.type[2:] if self.is_array else self.type

    @property
    def is_struct(self):
        return self.base_type not in PRIMITIVES


@dataclass
class Struct:
    name: str
    versions: Versions
    fields: List[Field] = dc_field(default_factory=list)
    common: bool = False
    line: int = 0


@dataclass
class Message:
    kind: str                 # request | response | data
    name: str
    api_key: Optional[int]
    valid: Versions
    flexible: Versions
    unstable: bool
    fields: List[Field] = dc_field(default_factory=list)
    commons: List[Struct] = dc_field(default_factory=list)
    structs: List[Struct] = dc_field(default_factory=list)  # every nested struct, inline and common
    path: str = ""
    line: int = 0


TOKEN = re.compile(r'[A-Za-z_]+="(?:[^"\\]|\\.)*"|\S+')


def _unquote(value):
    if value.startswith('"'):
        import json
        return json.loads(value)
    return value


def _options(tokens, where):
    opts = {}
    flags = set()
    for tok in tokens:
        if "=" in tok:
            key, value = tok.split("=", 1)
            if key in opts:
                raise DefError(f"{where}: duplicate option {key}")
            opts[key] = _unquote(value)
        else:
            flags.add(tok)
    return opts, flags


def parse_file(path):
    with open(path, encoding="utf-8") as f:
        return parse_text(f.read(), path)


def parse_text(text, path="<text>"):
    try:
        return _parse_text(text, path)
    except DefError as e:
        if str(e).startswith(path):
            raise
        raise DefError(f"{path}: {e}") from None


def _parse_text(text, path):
    messages = []
    # Stack of (indent of the container's fields, container). A field whose
    # next line is indented further defines an inline struct.
    stack = []
    last_field = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = f"{path}:{lineno}"
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if "\t" in raw:
            raise DefError(f"{where}: tabs are not allowed")
        indent = len(raw) - len(raw.lstrip(" "))
        tokens = TOKEN.findall(raw.strip())
        if indent == 0:
            kind = tokens[0]
            if kind not in ("request", "response", "data") or len(tokens) < 2:
                raise DefError(f"{where}: expected 'request|response|data Name ...'")
            opts, flags = _options(tokens[2:], where)
            unknown = (set(opts) - {"api", "versions", "flexible"}) | (flags - {"unstable"})
            if unknown:
                raise DefError(f"{where}: unknown message options {sorted(unknown)}")
            if "versions" not in opts:
                raise DefError(f"{where}: message needs versions=")
            if kind != "data" and "api" not in opts:
                raise DefError(f"{where}: {kind} needs api=")
            msg = Message(kind=kind, name=tokens[1],
                          api_key=int(opts["api"]) if "api" in opts else None,
                          valid=Versions.parse(opts["versions"]),
                          flexible=Versions.parse(opts.get("flexible", "none")),
                          unstable="unstable" in flags, path=path, line=lineno)
            messages.append(msg)
            stack = [(2, msg)]
            last_field = None
            continue
        if not stack:
            raise DefError(f"{where}: field outside a message")
        if indent == stack[-1][0] + 2 and last_field is not None and last_field[0] == stack[-1][0]:
            fld0 = last_field[1]
            if not fld0.is_struct:
                raise DefError(f"{where}: {fld0.name} has type {fld0.type} and cannot have fields")
            inline = Struct(name=fld0.base_type, versions=fld0.versions, line=lineno)
            fld0.struct = inline
            stack.append((indent, inline))
        while len(stack) > 1 and stack[-1][0] > indent:
            stack.pop()
        if stack[-1][0] != indent:
            raise DefError(f"{where}: bad indentation")
        container = stack[-1][1]
        msg = stack[0][1]
        if tokens[0] == "common":
            if container is not msg or len(tokens) != 3:
                raise DefError(f"{where}: expected 'common Name versions' directly inside a message")
            common = Struct(name=tokens[1], versions=Versions.parse(tokens[2]), common=True, line=lineno)
            msg.commons.append(common)
            stack.append((indent + 2, common))
            last_field = None
            continue
        if len(tokens) < 3:
            raise DefError(f"{where}: expected 'Name type versions [options]'")
        opts, flags = _options(tokens[3:], where)
        unknown = (set(opts) - {"nullable", "tag", "tagged", "default", "flexible"}) | flags
        if unknown:
            raise DefError(f"{where}: unknown field options {sorted(unknown)}")
        fld = Field(name=tokens[0], type=tokens[1], versions=Versions.parse(tokens[2]),
                    nullable=Versions.parse(opts.get("nullable", "none")),
                    tag=int(opts["tag"]) if "tag" in opts else None,
                    tagged=Versions.parse(opts.get("tagged", "none")),
                    default=opts.get("default"),
                    flexible=Versions.parse(opts["flexible"]) if "flexible" in opts else None,
                    line=lineno)
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", fld.name):
            raise DefError(f"{where}: bad field name {fld.name!r}")
        container.fields.append(fld)
        last_field = (indent, fld)
    for msg in messages:
        _resolve(msg)
    return messages


def _resolve(msg):
    where = f"{msg.path}:{msg.line}"
    commons = {c.name: c for c in msg.commons}
    seen = {}

    def register(struct):
        if struct.name in seen and seen[struct.name] is not struct:
            raise DefError(f"{msg.path}:{struct.line}: struct {struct.name} defined twice in {msg.name}")
        if struct.name == msg.name:
            raise DefError(f"{msg.path}:{struct.line}: struct {struct.name} has the message's name")
        if struct.name not in seen:
            seen[struct.name] = struct
            msg.structs.append(struct)

    def walk(fields):
        tags = {}
        for f in fields:
            fw = f"{msg.path}:{f.line}"
            if f.is_struct:
                if f.struct is None:
                    if f.base_type not in commons:
                        raise DefError(f"{fw}: unknown struct type {f.base_type}")
                    f.struct = commons[f.base_type]
                else:
                    if f.base_type in commons:
                        raise DefError(f"{fw}: {f.base_type} is both inline and common")
                    register(f.struct)
                    walk(f.struct.fields)
            elif f.base_type.startswith("[]"):
                raise DefError(f"{fw}: nested arrays are not supported")
            if (f.tag is None) != f.tagged.empty:
                raise DefError(f"{fw}: tag= and tagged= go together")
            if f.tag is not None:
                if f.tag in tags:
                    raise DefError(f"{fw}: tag {f.tag} used twice")
                tags[f.tag] = f
                if f.tagged.hi is not None:
                    raise DefError(f"{fw}: tagged versions must be open ended")
                if f.tagged.intersect(msg.flexible) != f.tagged:
                    raise DefError(f"{fw}: tagged versions must be flexible versions")
                if f.type == "records":
                    raise DefError(f"{fw}: records cannot be tagged")
            if f.base_type == "records" and f.is_array:
                raise DefError(f"{fw}: arrays of records are not supported")

    for c in msg.commons:
        register(c)
    walk(msg.fields)
    for c in msg.commons:
        walk(c.fields)
    if msg.valid.empty or msg.valid.hi is None:
        raise DefError(f"{where}: valid versions must be a closed range")


def parse_dir(defs_dir):
    """All messages of every *.def in defs_dir, as {file stem: [Message, ...]}."""
    out = {}
    for name in sorted(os.listdir(defs_dir)):
        if name.endswith(".def"):
            out[name[:-4]] = parse_file(os.path.join(defs_dir, name))
    return out


def snake_case(name):
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    return s.lower()
