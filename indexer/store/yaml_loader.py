"""libyaml's safe loader, with YAML 1.1's silent conversions made visible: timestamps stay text, a bool or number is
kept as written (`Trap`, which validation warns about), a key given twice is an error, as YAML says (PyYAML keeps the
last), and collections nested more than MAX_DEPTH deep are refused (`TooDeep`) before libyaml builds them.
"""

import yaml

from indexer.store.flat_yaml import NOT_FLAT, load_flat

TIMESTAMP = "tag:yaml.org,2002:timestamp"
MERGE = "tag:yaml.org,2002:merge"
TRAP_TAGS = ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


class Trap(str):
    """A plain scalar kept as written although YAML 1.1 reads it as `read_as`."""

    read_as: object = None


class StoreLoader(yaml.CSafeLoader):
    """CSafeLoader without timestamp conversion, returning `Trap` for bools and numbers, refusing duplicate keys."""

    def construct_mapping(self, node, deep=False):
        # two `invalid_at:` lines would leave the lifecycle to whichever came last; keys merged in with `<<` may be
        # overridden: that is what merging is for
        seen = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != MERGE:
                if (key_node.tag, key_node.value) in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key_node.value!r}: a key may appear once", key_node.start_mark
                    )
                seen.add((key_node.tag, key_node.value))
        return super().construct_mapping(node, deep)


StoreLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != TIMESTAMP]
    for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
}


def _keep_as_written(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Trap:
    trap = Trap(node.value)
    try:
        trap.read_as = yaml.SafeLoader.yaml_constructors[node.tag](loader, node)
    except (ValueError, KeyError, IndexError) as e:  # PyYAML's own errors for `!!int abc`, `!!bool maybe`, `!!int`
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value[:40]!r} is not a valid {node.tag.rsplit(':', 1)[-1]}", node.start_mark
        ) from e
    return trap


def _timestamp_as_written(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
    return loader.construct_scalar(node)  # an explicit !!timestamp stays text too


for _tag in TRAP_TAGS:
    StoreLoader.add_constructor(_tag, _keep_as_written)
StoreLoader.add_constructor(TIMESTAMP, _timestamp_as_written)


# libyaml's composer recurses in C: about 30,000 nested levels overflow the stack and kill
# the process (a segmentation fault, not an exception), and its time grows with depth squared.
MAX_DEPTH = 1000


class TooDeep(Exception):
    """Collections nested more than MAX_DEPTH levels deep; `line` (0-based) is where that level opens."""

    def __init__(self, line: int):
        super().__init__(f"collections nested more than {MAX_DEPTH} levels deep")
        self.line = line


def load(text: str) -> object:
    """Parse one YAML document as `StoreLoader` does, a mapping's keys as text (flat frontmatter takes a fast path)."""
    value = load_flat(text, StoreLoader, Trap)
    if value is not NOT_FLAT:
        return value  # its keys are text already
    check_depth(text)
    value = yaml.load(text, Loader=StoreLoader)
    return {str(k): v for k, v in value.items()} if isinstance(value, dict) else value


def check_depth(text: str) -> None:
    """Raise TooDeep if `text` nests collections more than MAX_DEPTH levels deep."""
    # each level opens with an indicator of its own, so few indicators means shallow enough
    if sum(map(text.count, "[{-?:")) <= MAX_DEPTH:
        return
    depth = 0
    for event in yaml.parse(text, Loader=StoreLoader):  # events only: no recursion, no objects
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                assert event.start_mark is not None  # the parser marks every event it emits
                raise TooDeep(event.start_mark.line)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
