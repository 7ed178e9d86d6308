"""libyaml's safe loader, with YAML 1.1's silent conversions made visible.

Timestamps stay text (the indexer normalises them itself). A plain scalar that
YAML 1.1 would turn into a bool or a number (`name: no`, an all-digit id) is kept
as written, as a `Trap`, so validation can keep the text and warn about it.
"""

import yaml

from .flat_yaml import NOT_FLAT, load_flat

TIMESTAMP = "tag:yaml.org,2002:timestamp"
TRAP_TAGS = ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


class Trap(str):
    """A plain scalar kept as written although YAML 1.1 reads it as `read_as`."""

    read_as: object = None


class StoreLoader(yaml.CSafeLoader):
    """CSafeLoader without timestamp conversion, returning `Trap` for bools and numbers."""


StoreLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != TIMESTAMP]
    for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
}


def _keep_as_written(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Trap:
    trap = Trap(node.value)
    trap.read_as = yaml.SafeLoader.yaml_constructors[node.tag](loader, node)
    return trap


for _tag in TRAP_TAGS:
    StoreLoader.add_constructor(_tag, _keep_as_written)


def load(text: str) -> object:
    """Parse one YAML document as `StoreLoader` does (flat frontmatter takes a fast path)."""
    value = load_flat(text, StoreLoader, Trap)
    return yaml.load(text, Loader=StoreLoader) if value is NOT_FLAT else value
