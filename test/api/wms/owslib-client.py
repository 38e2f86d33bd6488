# OWSLib (Debian python3-owslib) as a WMS client of the Node host: reads the capabilities in
# 1.1.1 and 1.3.0, draws and queries a layer in each, and reports what it got as JSON on stdout.
# Arguments: the service URL, then a login and password (empty: the guest).
import base64, json, sys
from owslib.wms import WebMapService
from owslib.util import ServiceException

url, user, password = sys.argv[1], sys.argv[2] or None, sys.argv[3] or None
out = {}
try:
    WebMapService(url, version='1.1.1')
except Exception as e:  # a guest is asked for credentials
    out['guest'] = type(e).__name__ + ': ' + str(e)
for version in ('1.1.1', '1.3.0'):
    wms = WebMapService(url, version=version, username=user, password=password)
    layer = wms['red']
    got = {
        'type': wms.identification.type, 'title': wms.identification.title, 'layers': list(wms.contents),
        'layer_title': layer.title, 'queryable': layer.queryable, 'wgs84': layer.boundingBoxWGS84,
        'crs': sorted(set(c if isinstance(c, str) else c[4] if len(c) > 4 and c[4] else str(c) for c in layer.crsOptions))[:6],
        'styles': sorted(layer.styles), 'operations': [op.name for op in wms.operations],
    }
    # EPSG:4326 lon 0…20, lat 0…10: OWSLib 1.3.0 sends it latitude first, as 1.3.0 says.
    img = wms.getmap(layers=['red'], srs='EPSG:4326', bbox=(0, 0, 20, 10), size=(200, 100), format='image/png', transparent=True)
    got['map'] = base64.b64encode(img.read()).decode()
    info = wms.getfeatureinfo(layers=['red'], query_layers=['red'], srs='EPSG:4326', bbox=(0, 0, 20, 10), size=(200, 100),
                              format='image/png', info_format='application/json', xy=(40, 50))
    got['info'] = json.loads(info.read())
    try:
        wms.getmap(layers=['nope'], srs='EPSG:4326', bbox=(0, 0, 20, 10), size=(20, 10), format='image/png')
        got['exception'] = None
    except ServiceException as e:
        got['exception'] = str(e)
    out[version] = got
print(json.dumps(out))
