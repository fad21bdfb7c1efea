"""The type stubs list every public name of the built module, with their docstrings."""

import ast
import inspect

import moreau
from conftest import ROOT

STUB = ROOT / "python" / "moreau" / "_moreau.pyi"


def stub_tree():
    return ast.parse(STUB.read_text())


def test_stub_lists_every_function_and_class():
    tree = stub_tree()
    top = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    public = {n for n in dir(moreau._moreau) if not n.startswith("_")}
    missing = public - top
    assert not missing, f"regenerate the stubs (python/tools/gen_stubs.py): missing {sorted(missing)}"


def test_stub_lists_every_attribute_of_model_and_data():
    tree = stub_tree()
    for cls in (moreau.Model, moreau.Data, moreau.Option):
        node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
        members = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        public = {a for a, v in vars(cls).items() if not a.startswith("_")}
        missing = public - members
        assert not missing, f"{cls.__name__}: regenerate the stubs: missing {sorted(missing)}"


def test_every_public_function_has_a_docstring():
    for name in dir(moreau._moreau):
        obj = getattr(moreau._moreau, name)
        if name.startswith("_") or inspect.isclass(obj) or not callable(obj):
            continue
        doc = inspect.getdoc(obj) or ""
        assert len(doc.splitlines()) >= 2, f"{name} has no docstring beyond its signature"
