"Packaging for benchnb: every dependency and piece of metadata is read from settings.ini."
import shutil
from configparser import ConfigParser
from pathlib import Path

import setuptools
from setuptools.command.build_py import build_py

here = Path(__file__).parent
cfg = ConfigParser(delimiters=['='])
cfg.read(here/'settings.ini', encoding='utf-8')
cfg = cfg['DEFAULT']

licenses = {'apache2': ('Apache Software License 2.0', 'OSI Approved :: Apache Software License')}
statuses = ['1 - Planning', '2 - Pre-Alpha', '3 - Alpha', '4 - Beta', '5 - Production/Stable', '6 - Mature', '7 - Inactive']
py_versions = '3.10 3.11 3.12 3.13'.split()
min_python = cfg['min_python']
lic = licenses[cfg['license']]

def reqs(key): return cfg.get(key, '').split()

# every `<extra>_requirements` key is an extra: a family declares its own in settings.ini, nothing here names one
extras = {k.removesuffix('_requirements'): reqs(k) for k in cfg if k.endswith('_requirements') and k != 'requirements'}
extras['all'] = sorted({r for rs in extras.values() for r in rs})

# Data that lives at the top of the repo (config/, the report notebooks in nbs/reports/, the site's assets/) and
# is shipped inside
# the package, so that `benchnb.core.resource_path` finds it in an installed wheel as well as in a checkout.
package_data_dirs = {'config': here/'config', 'reports': here/'nbs'/'reports', 'assets': here/'assets'}

class BuildWithData(build_py):
    "Copy `config/` and the report notebooks into the built package."
    def run(self):
        super().run()
        for name, src in package_data_dirs.items():
            if not src.exists(): continue
            dest = Path(self.build_lib)/cfg['lib_name']/name
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(src, dest, ignore=shutil.ignore_patterns('.ipynb_checkpoints', '__pycache__'))

setuptools.setup(
    name=cfg['lib_name'], version=cfg['version'], description=cfg['description'],
    license=lic[0], classifiers=[
        'Development Status :: ' + statuses[int(cfg['status'])],
        'Intended Audience :: ' + cfg['audience'].title(),
        'License :: ' + lic[1],
        'Natural Language :: ' + cfg['language'].title(),
    ] + ['Programming Language :: Python :: ' + o for o in py_versions[py_versions.index(min_python):]],
    url=cfg['git_url'], author=cfg['author'], author_email=cfg['author_email'], keywords=cfg['keywords'],
    packages=setuptools.find_packages(include=[cfg['lib_name'], cfg['lib_name'] + '.*']),
    include_package_data=True, install_requires=reqs('requirements'), extras_require=extras,
    python_requires='>=' + min_python,
    long_description=(here/'README.md').read_text(encoding='utf-8') if (here/'README.md').exists() else '',
    long_description_content_type='text/markdown', zip_safe=False,
    cmdclass={'build_py': BuildWithData},
    entry_points={'console_scripts': cfg['console_scripts'].split(), 'nbdev': [f"{cfg['lib_name']}={cfg['lib_name']}._modidx:d"]},
)
