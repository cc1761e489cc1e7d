"""References written "package.module:object", imported when first used: how a benchmark's
entry names its parts (its builder, commands, reporters, ...) without importing them, as
lm-evaluation-harness registers its tasks, so registering every benchmark imports none of
their code.

>>> dumps = Reference("json:dumps")
>>> dumps([1, 2])
'[1, 2]'
>>> Reference("json:dumps", sort_keys=True)({"b": 1, "a": 2})
'{"a": 2, "b": 1}'

A dataclass field declared `Importable` (the fields of `lexbench.contract.BenchmarkSpec`)
takes the object itself or such a string, and holds the string as a `Reference`.

When a bad reference is caught: its shape ("package.module:object", names Python allows)
when the entry is made, that is when the benchmark is registered; whether the module and
object exist when it is first used, because finding out means importing the module, the
very import a reference puts off (resolving every built-in's would add about 110 modules,
numpy among them, to `lexbench.plugins.benchmarks()`; a plugin's builder may import
torch). Either way the error is one `BadReference` line naming whose reference it is
(benchmark and field), the string and what is wrong. A module that exists but fails to
import for want of a dependency is not a bad reference: that ImportError goes out as it
is, as it did when the part was imported by hand.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from dataclasses import fields, replace
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")

_REFERENCE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\Z")
_UNRESOLVED: Any = object()


class BadReference(ValueError):
    """A reference that is malformed or names nothing importable (one line: whose it is,
    the string, what is wrong)."""


class Reference:
    """`"package.module:object"`, imported on first use; calling it calls the object, with
    `args` and `kwargs` bound first (as `functools.partial`: `Reference("pkg.sets:build",
    "google")` calls `build("google", model, **options)`).

    `where` says whose reference it is in error messages ("benchmark 'lambda', field
    build"). A reference that `allows_value` (a field read without arguments, such as
    `prompt_variants`) may name a value rather than a callable; calling it returns the value.
    """

    __slots__ = ("_target", "allows_value", "args", "kwargs", "reference", "where")

    def __init__(self, reference: str, *args: Any, **kwargs: Any) -> None:
        if not isinstance(reference, str) or not _REFERENCE.match(reference):
            raise BadReference(
                f'{reference!r} is not a reference: write it as "package.module:object"'
            )
        self.reference = reference
        self.args = args
        self.kwargs = kwargs
        self.where = ""
        self.allows_value = False
        self._target = _UNRESOLVED

    def placed(self, where: str, allows_value: bool) -> Reference:
        """The same reference, with whose it is (`where`) and whether it may name a value."""
        copy = Reference(self.reference, *self.args, **self.kwargs)
        copy.where, copy.allows_value, copy._target = where, allows_value, self._target
        return copy

    def resolve(self) -> Any:
        """The object named, imported the first time it is asked for."""
        if self._target is _UNRESOLVED:
            self._target = self._import()
        return self._target

    def _import(self) -> Any:
        module_name, _, path = self.reference.partition(":")
        try:
            target: Any = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            missing = error.name or ""
            if module_name != missing and not module_name.startswith(missing + "."):
                raise  # the module exists; something it imports is not installed
            raise BadReference(self._say(f"there is no module {missing!r}")) from None
        for attribute in path.split("."):
            try:
                target = getattr(target, attribute)
            except AttributeError:
                raise BadReference(self._say(f"{module_name} has no {path!r}")) from None
        if not callable(target) and (not self.allows_value or self.args or self.kwargs):
            kind = type(target).__name__
            raise BadReference(self._say(f"it names a {kind}, where a callable is wanted"))
        return target

    def _say(self, why: str) -> str:
        return f"{self.where}: " * bool(self.where) + f"{self.reference!r}: {why}"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        target = self.resolve()
        if not callable(target):  # a value, named where the field allows one
            return target
        return target(*self.args, *args, **{**self.kwargs, **kwargs})

    @property
    def __signature__(self) -> inspect.Signature:
        """The named callable's signature, less the bound arguments (what `inspect` shows)."""
        return inspect.signature(functools.partial(self.resolve(), *self.args, **self.kwargs))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Reference):
            return NotImplemented
        return (self.reference, self.args, self.kwargs) == (
            other.reference,
            other.args,
            other.kwargs,
        )

    def __hash__(self) -> int:
        return hash(self.reference)

    def __repr__(self) -> str:
        bound = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"Reference({', '.join([repr(self.reference), *bound])})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt, (self.reference, self.args, self.kwargs, self.where, self.allows_value))

    def __copy__(self) -> Reference:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Reference:
        return self


def _rebuilt(
    reference: str, args: tuple[Any, ...], kwargs: dict[str, Any], where: str, allows: bool
) -> Reference:
    return Reference(reference, *args, **kwargs).placed(where, allows)


_REQUIRED: Any = object()


class Importable(Generic[T]):
    """A dataclass field that takes a `T` or a "package.module:object" string naming one
    (held as a `Reference`, so reading the field gives something called like a `T`).

    `allows_value`: the field is read by calling it without arguments (a getter such as
    `prompt_variants`), and its string may name the value the getter would return. A field
    without a `default` is required. Errors name the field as the owner's
    `_reference_label(field)` words it ("benchmark 'lambda', field build"), else as
    "ClassName.field".
    """

    def __init__(self, default: T = _REQUIRED, *, allows_value: bool = False) -> None:
        self.default = default
        self.allows_value = allows_value
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type) -> T: ...

    @overload
    def __get__(self, obj: object, owner: type) -> T: ...

    def __get__(self, obj: object | None, owner: type) -> T:
        if obj is None:  # the class's default, as dataclasses reads it
            if self.default is _REQUIRED:
                raise AttributeError(self.name)
            return self.default
        value: T = obj.__dict__[self.name]
        return value

    def __set__(self, obj: object, value: T | str) -> None:
        label = getattr(obj, "_reference_label", None)
        where = label(self.name) if callable(label) else f"{type(obj).__name__}.{self.name}"
        if isinstance(value, str):
            try:
                value = Reference(value)  # type: ignore[assignment]
            except BadReference as error:
                raise BadReference(f"{where}: {error}") from None
        if isinstance(value, Reference):
            value = value.placed(value.where or where, self.allows_value)  # type: ignore[assignment]
        obj.__dict__[self.name] = value


def labelled(part: T, where: str) -> T:
    """`part` (a dataclass with `Importable` fields) with each reference's errors naming
    `where` before the field ("benchmark 'scan', field finetune_tables.table")."""
    changes = {
        f.name: value.placed(f"{where}.{f.name}", value.allows_value)
        for f in fields(part)  # type: ignore[arg-type]
        if isinstance(value := getattr(part, f.name), Reference)
    }
    return replace(part, **changes) if changes else part  # type: ignore[type-var]
