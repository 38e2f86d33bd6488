// Where GDAL's GeoPackage validator lives (Debian `python3-gdal`).
export const GPKG_VALIDATOR = process.env.VALIDATE_GPKG ?? '/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py'

export const NO_VALIDATOR_HELP = `No validate_gpkg.py found. Install Debian's: sudo apt-get update && sudo apt-get install -y python3-gdal
or point VALIDATE_GPKG at the script.`
