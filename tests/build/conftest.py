"""The build tests' fixtures, once a session: the page as the build renders it, and the page data the
views read (build.prepared: the committed results, every timed row tagged)."""
import pytest

from chapter import build


@pytest.fixture(scope="session")
def rendered_page():
    """The page as `make site` would build it now, from templates/, static/ and the results JSON."""
    data = build.load_results()
    return build.render(data, build.load_rerun(data))


@pytest.fixture(scope="session")
def page_data():
    """The committed results as render() hands them to the views (a view never changes them)."""
    return build.prepared(build.load_results())
