"""The build tests' fixture: the page as the build renders it, once a session."""
import pytest

from chapter import build


@pytest.fixture(scope="session")
def rendered_page():
    """The page as `make site` would build it now, from templates/, static/ and the results JSON."""
    data = build.load_results()
    return build.render(data, build.load_rerun(data))
